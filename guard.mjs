// ESM entry of `agent-tools-native/guard`: the same functions as the CommonJS entry (the one
// list).
export * from './guard.js'
export { default } from './guard.js'
