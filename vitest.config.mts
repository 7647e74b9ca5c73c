import { defineConfig } from 'vitest/config'

export default defineConfig({
  test: {
    include: ['__test__/**/*.test.ts'],
    testTimeout: 30_000,
    hookTimeout: 30_000,
    typecheck: { enabled: true, include: ['__test__/**/*.test-d.ts'] },
    // The ESM entries re-export their CommonJS entry (`export * from './index.js'`): Node loads
    // them, as it does for a user, so both formats share the one module instance.
    server: { deps: { external: [/\/(index|guard)\.mjs$/] } },
  },
})
