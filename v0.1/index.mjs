// ESM entry of `agent-tools-native/v0.1`: the same objects as its CommonJS entry (the one list).
export * from './index.js'
export { default } from './index.js'
