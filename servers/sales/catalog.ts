/**
 * The fixed catalogue the sales database is generated from: regions, channels and products.
 * Weights are relative shares of orders; prices are in fen (1/100 CNY) so money stays integer.
 */

export interface RegionDef {
  readonly nameZh: string;
  readonly nameEn: string;
  readonly weight: number;
}
export interface ChannelDef {
  readonly code: string;
  readonly name: string;
  readonly weight: number;
}
export interface ProductDef {
  readonly sku: string;
  readonly name: string;
  readonly category: string;
  readonly priceFen: number;
  readonly weight: number;
}

/** Ten regions; the first four are the ones the seed essay names. `nameZh` is the value users pick. */
export const REGIONS: readonly RegionDef[] = [
  { nameZh: '北京', nameEn: 'Beijing', weight: 16 },
  { nameZh: '上海', nameEn: 'Shanghai', weight: 18 },
  { nameZh: '广州', nameEn: 'Guangzhou', weight: 12 },
  { nameZh: '深圳', nameEn: 'Shenzhen', weight: 13 },
  { nameZh: '杭州', nameEn: 'Hangzhou', weight: 9 },
  { nameZh: '成都', nameEn: 'Chengdu', weight: 8 },
  { nameZh: '武汉', nameEn: 'Wuhan', weight: 7 },
  { nameZh: '南京', nameEn: 'Nanjing', weight: 6 },
  { nameZh: '西安', nameEn: "Xi'an", weight: 5 },
  { nameZh: '重庆', nameEn: 'Chongqing', weight: 6 },
];

export const CHANNELS: readonly ChannelDef[] = [
  { code: 'online', name: 'Online store', weight: 45 },
  { code: 'retail', name: 'Retail shops', weight: 30 },
  { code: 'partner', name: 'Partner resellers', weight: 15 },
  { code: 'wholesale', name: 'Wholesale', weight: 10 },
];

export const PRODUCTS: readonly ProductDef[] = [
  { sku: 'EL-001', name: 'Wireless earbuds', category: 'Electronics', priceFen: 39900, weight: 9 },
  { sku: 'EL-002', name: 'Smart watch', category: 'Electronics', priceFen: 129900, weight: 5 },
  { sku: 'EL-003', name: 'Power bank', category: 'Electronics', priceFen: 14900, weight: 10 },
  { sku: 'EL-004', name: 'Tablet', category: 'Electronics', priceFen: 249900, weight: 3 },
  { sku: 'HM-001', name: 'Rice cooker', category: 'Home', priceFen: 45900, weight: 6 },
  { sku: 'HM-002', name: 'Air purifier', category: 'Home', priceFen: 159900, weight: 3 },
  { sku: 'HM-003', name: 'Tea set', category: 'Home', priceFen: 26800, weight: 5 },
  { sku: 'HM-004', name: 'Desk lamp', category: 'Home', priceFen: 12900, weight: 7 },
  { sku: 'AP-001', name: 'Down jacket', category: 'Apparel', priceFen: 89900, weight: 5 },
  { sku: 'AP-002', name: 'Running shoes', category: 'Apparel', priceFen: 59900, weight: 7 },
  { sku: 'AP-003', name: 'Cotton T-shirt', category: 'Apparel', priceFen: 9900, weight: 12 },
  { sku: 'FD-001', name: 'Green tea 250g', category: 'Food', priceFen: 6800, weight: 11 },
  { sku: 'FD-002', name: 'Mooncake box', category: 'Food', priceFen: 19800, weight: 4 },
  { sku: 'FD-003', name: 'Sichuan pepper sauce', category: 'Food', priceFen: 3900, weight: 9 },
  { sku: 'BK-001', name: 'Notebook set', category: 'Stationery', priceFen: 2900, weight: 8 },
  { sku: 'BK-002', name: 'Fountain pen', category: 'Stationery', priceFen: 16800, weight: 4 },
];

/** Month-of-year demand factors (Jan..Dec): Spring Festival, 618, Mid-Autumn, Singles' Day, year end. */
export const MONTH_FACTOR: readonly number[] = [1.15, 0.85, 0.9, 0.95, 1.0, 1.2, 0.95, 0.95, 1.1, 1.05, 1.35, 1.2];
