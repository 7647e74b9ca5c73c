#!/usr/bin/env node
'use strict'
// agent-tools-native CLI: `call <tool> <json-args>` prints the result text (exit 1 on an error
// result). Workspace flags and environment variables are those of buildConfig.

const { buildConfig, dispatch, StartupError } = require('./index.js')

const USAGE = `usage: agent-tools-native call <tool> '<json args>' [--workspace <dir>] [--read-only] [--allow-outside-workspace]`

function usage(message) {
  process.stderr.write(`agent-tools-native: ${message}\n${USAGE}\n`)
  process.exit(2)
}

async function main(argv) {
  const positional = []
  for (let i = 0; i < argv.length; i++) {
    if (argv[i] === '--workspace') i++
    else if (!argv[i].startsWith('--')) positional.push(argv[i])
  }
  const [command, name, json = '{}'] = positional
  if (command !== 'call' || !name) usage('expected a command')
  let args
  try {
    args = JSON.parse(json)
  } catch (err) {
    usage(`arguments are not valid JSON: ${err.message}`)
  }
  let config
  try {
    config = buildConfig(argv, process.env)
  } catch (err) {
    if (err instanceof StartupError) usage(err.message)
    throw err
  }
  const result = await dispatch(name, args, config)
  process.stdout.write(`${result.text}\n`)
  process.exitCode = result.isError ? 1 : 0
}

main(process.argv.slice(2))
