// Fixtures for tests of the package root (the newest contract): the same shapes as helpers.ts,
// with tools from `agent-tools-native` itself instead of `agent-tools-native/v0.1`.
import { type AgentTools, contentText, createAgentTools, type DispatchResult } from '../index.js'
import { tempDir, writeTree } from './helpers'

export { isolateGitHome, packageForAnyUser, tempDir, writeTree } from './helpers'

/** A workspace holding `files`, with root tools bound to it. */
export function workspace(
  files: Record<string, string | Uint8Array> = {},
  options: Record<string, unknown> = {},
): { root: string; tools: AgentTools } {
  const root = tempDir()
  writeTree(root, files)
  return { root, tools: createAgentTools({ workspaceRoot: root, ...options }) }
}

/** The success text (text parts joined); fails the test with the envelope otherwise. */
export function ok(result: DispatchResult): string {
  if (result.isError) throw new Error(`expected success, got ${contentText(result.content)}`)
  return contentText(result.content)
}

/** The parsed envelope of an error result; fails the test on success. */
export function err(
  result: DispatchResult,
): { error: string; message: string } & Record<string, unknown> {
  if (!result.isError) throw new Error(`expected an error, got ${contentText(result.content)}`)
  return JSON.parse(contentText(result.content))
}
