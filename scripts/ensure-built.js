// Builds the addon (release) when no compiled .node file sits next to the package yet, so
// `npm test` works on a fresh clone. An existing build is reused as it is.
const { existsSync, readdirSync } = require('node:fs')
const { execSync } = require('node:child_process')
const { join } = require('node:path')

const root = join(__dirname, '..')
const built = readdirSync(root).some((f) => f.endsWith('.node'))
if (!built || !existsSync(join(root, 'binding.js'))) {
  console.log(
    'agent-tools-native: no native build found, running `npm run build` (takes a few minutes)',
  )
  execSync('npm run build', { cwd: root, stdio: 'inherit' })
}
