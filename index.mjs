// ESM entry: the same objects as the CommonJS entry, whose `exports.name =` lines Node reads
// for the names (index.js is the one list).
export * from './index.js'
export { default } from './index.js'
