#!/usr/bin/env node
// `npm run pack:local`: the two tarballs a project installs before the package is published —
// the main package and this machine's platform package with the built addon — in `dist/`.
// Install them together: npm install <dist>/agent-tools-native-<v>.tgz <dist>/agent-tools-native-<platform>-<v>.tgz
import { mkdirSync } from 'node:fs'
import { join, relative } from 'node:path'
import { packBoth, repo } from './pack-lib.mjs'

const dist = join(repo, 'dist')
mkdirSync(dist, { recursive: true })
const { main, native, platform } = packBoth(dist)
const show = (p) => relative(process.cwd(), p) || p
console.log(`packed for ${platform}:\n  ${show(main.tarball)}\n  ${show(native.tarball)}`)
console.log(`install both in a project:\n  npm install ${main.tarball} ${native.tarball}`)
