// `npm test`: every test (vitest run; arguments after `--` go to it), with the formatting and type checks
// (`npm run typecheck`, prettier) running beside it rather than before it: they take about 30 s of one core,
// and the test files leave a core idle while they wait for browsers, brokers and child processes. A check's
// output is printed when it ends; the exit status is not 0 when any check or test failed.
import { spawn } from 'node:child_process'
import path from 'node:path'

// The tools from this checkout's node_modules, as npm's scripts find them, when run without npm too.
const env = {
  ...process.env,
  PATH: `${path.resolve(import.meta.dirname, '../node_modules/.bin')}${path.delimiter}${process.env.PATH ?? ''}`,
}

const CHECKS: Array<[string, string[]]> = [
  ['prettier', ['--check', '.']],
  ['tsc', ['--noEmit']],
  ['tsc', ['--noEmit', '-p', 'services/recordings/player']],
  ['tsc', ['--noEmit', '-p', 'web']],
]

function run(command: string, args: string[], quiet: boolean): Promise<{ code: number; output: string }> {
  return new Promise((resolve) => {
    const child = spawn(command, args, { env, stdio: quiet ? ['ignore', 'pipe', 'pipe'] : 'inherit' })
    let output = ''
    child.stdout?.on('data', (d: Buffer) => (output += d.toString()))
    child.stderr?.on('data', (d: Buffer) => (output += d.toString()))
    child.on('error', (err) => resolve({ code: 1, output: `${String(err)}\n` }))
    child.on('close', (code) => resolve({ code: code ?? 1, output }))
  })
}

const checks = CHECKS.map(async ([command, args]) => {
  const { code, output } = await run(command, args, true)
  const line = `${code === 0 ? 'passed' : 'FAILED'}: ${[command, ...args].join(' ')}\n`
  process.stdout.write(line + (code === 0 ? '' : output))
  return { code, line }
})
const tests = await run('vitest', ['run', ...process.argv.slice(2)], false)
const checked = await Promise.all(checks)
// Again after the tests' report, where a reader looks last.
process.stdout.write(checked.map((c) => c.line).join(''))
process.exit(tests.code !== 0 || checked.some((c) => c.code !== 0) ? 1 : 0)
