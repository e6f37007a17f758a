/**
 * Console styles. Text colours meet WCAG AA (≥ 4.5:1) on their backgrounds: #1f2937 on #ffffff
 * (14.7:1), #4b5563 on #ffffff (7.6:1), #991b1b on #fef2f2 (7.7:1), #ffffff on #1d4ed8 (6.7:1),
 * #1f2937 on #fde68a (11.6:1), #14532d on #f0fdf4 (9.6:1), placeholder #6b7280 on #ffffff (4.8:1). Focus is a 3px #1d4ed8 outline.
 * @module
 */
export const APP_CSS = `
*{box-sizing:border-box}
body{margin:0;font:16px/1.5 system-ui,-apple-system,"Segoe UI",Roboto,sans-serif;color:#1f2937;background:#f3f4f6}
.skip{position:absolute;left:-999px;top:0;background:#1d4ed8;color:#fff;padding:.5rem 1rem}
.skip:focus{left:1rem;z-index:10}
header.top{display:flex;align-items:baseline;gap:1rem;padding:.75rem 1.5rem;background:#111827;color:#fff}
header.top h1{font-size:1.25rem;margin:0}
#conn{margin:0;color:#e5e7eb}
#conn.denied{color:#fecaca;font-weight:600}
main{max-width:1100px;margin:0 auto;padding:1rem 1.5rem 4rem}
section{background:#fff;border:1px solid #d1d5db;border-radius:8px;padding:1rem 1.25rem;margin:1rem 0}
h2{font-size:1.15rem;margin:0 0 .75rem}
h3{font-size:1.05rem;margin:0 0 .5rem}
.muted,.desc,.source,.hint{color:#4b5563}
.desc,.source,.hint{font-size:.9rem;margin:.15rem 0}
.count{font-weight:normal;color:#4b5563}
:focus-visible{outline:3px solid #1d4ed8;outline-offset:2px}
input,select,textarea{font:inherit;color:#1f2937;background:#fff;border:1px solid #6b7280;border-radius:4px;padding:.35rem .5rem}
::placeholder{color:#6b7280;opacity:1}
textarea{width:100%;min-height:5rem;font-family:ui-monospace,Menlo,monospace}
input[type=text],input[type=email],input[type=url],input[type=password],input[type=number],select{min-width:16rem}
input[aria-invalid=true],select[aria-invalid=true],fieldset[aria-invalid=true]{border-color:#b91c1c;border-width:2px}
button,.button{font:inherit;cursor:pointer;border-radius:6px;padding:.4rem 1rem;border:1px solid #1d4ed8;background:#1d4ed8;color:#fff;text-decoration:none;display:inline-block}
button.secondary,.button.secondary{background:#fff;color:#1d4ed8}
button.danger{background:#fff;color:#991b1b;border-color:#991b1b}
button:disabled{opacity:.6;cursor:not-allowed}
.buttons{display:flex;gap:.75rem;flex-wrap:wrap;margin-top:1rem}
.mask-toggle{margin-top:.35rem;padding:.1rem .6rem;font-size:.85em}
.mask-toggle[aria-pressed="true"]{background:#1d4ed8;color:#fff}
form.inline{display:flex;flex-wrap:wrap;gap:.5rem;align-items:center}
form.inline .error{flex-basis:100%}
.error{color:#991b1b;margin:.15rem 0}
.error:empty{display:none}
.prompt{border:2px solid #1d4ed8;border-radius:8px;padding:1rem;margin:1rem 0;background:#fff}
.prompt .server{font-weight:700}
.prompt .message{font-size:1.05rem;white-space:pre-wrap}
.field{margin:.9rem 0}
.field>label,.field legend{font-weight:600;display:block}
.field fieldset{border:1px solid #d1d5db;border-radius:4px;padding:.5rem .75rem}
.field .opt{display:block;font-weight:normal}
.req{color:#991b1b;font-weight:normal}
.form-error{background:#fef2f2;color:#991b1b;border-radius:4px;padding:.5rem}
.form-error:empty{display:none}
.warn{background:#fffbeb;border:1px solid #b45309;color:#78350f;border-radius:4px;padding:.5rem .75rem;margin:.5rem 0}
.warn ul{margin:.25rem 0;padding-left:1.25rem}
.url-full{display:block;word-break:break-all;background:#f9fafb;border:1px solid #d1d5db;padding:.5rem;border-radius:4px;font-family:ui-monospace,Menlo,monospace}
mark{background:#fde68a;color:#1f2937;font-weight:700}
.notice{background:#fef2f2;color:#991b1b;border-radius:4px;padding:.4rem .75rem;margin:.25rem 0;list-style:none}
.notice.info{background:#f0fdf4;color:#14532d}
#notices{padding:0;margin:0}
.card{border:1px solid #d1d5db;border-radius:6px;padding:.75rem 1rem;margin:.5rem 0}
.state{display:inline-block;border-radius:999px;padding:0 .6rem;font-size:.9rem;background:#e5e7eb;color:#1f2937}
.state.ready,.state.ok{background:#dcfce7;color:#14532d}
.state.failed,.state.missing,.state.unreadable,.state.timeout{background:#fee2e2;color:#991b1b}
pre{white-space:pre-wrap;word-break:break-word;background:#f9fafb;border:1px solid #e5e7eb;border-radius:4px;padding:.5rem;margin:.25rem 0;font-size:.9rem}
.result.is-error{border-left:4px solid #b91c1c;padding-left:.75rem;background:#fef2f2}
.result.is-error h4{color:#991b1b}
.result img{max-width:100%;border:1px solid #d1d5db}
.collapsed-note{font-size:.9rem;margin:.25rem 0}
.collapsed-note .show-all{margin-left:.5rem;padding:.15rem .6rem}
table{border-collapse:collapse;width:100%;font-size:.95rem}
th,td{text-align:left;border-bottom:1px solid #e5e7eb;padding:.35rem .5rem;vertical-align:top}
details>summary{cursor:pointer}
#audit table{table-layout:fixed}
#audit th:nth-child(1){width:11rem}#audit th:nth-child(2){width:8rem}#audit th:nth-child(3){width:6rem}#audit th:nth-child(4){width:5.5rem}#audit th:nth-child(5){width:8rem}
#audit td{overflow-wrap:anywhere;word-break:break-word}
#audit td code{white-space:pre-wrap;overflow-wrap:anywhere}
#roots table{table-layout:fixed}
#roots th:nth-child(1){width:8rem}#roots th:nth-child(3){width:5.5rem}#roots th:nth-child(4){width:5rem}#roots th:nth-child(5){width:6.5rem}#roots th:nth-child(6){width:6.5rem}
#roots td{overflow-wrap:anywhere;word-break:break-word}
#roots td button{white-space:nowrap;word-break:normal}
#roots td code{white-space:pre-wrap;overflow-wrap:anywhere}
.toast{position:fixed;right:1rem;bottom:1rem;z-index:20;max-width:28rem;display:flex;flex-wrap:wrap;gap:.5rem;align-items:center;background:#fde68a;color:#1f2937;border:2px solid #1d4ed8;border-radius:8px;padding:.75rem 1rem;box-shadow:0 4px 16px rgba(0,0,0,.25)}
.toast[hidden]{display:none}
#new-request-text{flex-basis:100%;font-weight:600}
`;
