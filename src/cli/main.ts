#!/usr/bin/env node
console.log('parley: under construction');
