// The real posthog-python for SDK tests: a venv under the user's cache directory (WREN_PY_VENV, else
// $XDG_CACHE_HOME/wren/py or ~/.cache/wren/py) with `posthog` from PyPI. CI prepares it; a fresh clone
// creates it on first use. Only a missing python3 is a reason to skip.
import { spawn, spawnSync } from 'node:child_process'
import { existsSync } from 'node:fs'
import { homedir } from 'node:os'
import path from 'node:path'

export const venvDir = process.env.WREN_PY_VENV ?? path.join(process.env.XDG_CACHE_HOME ?? path.join(homedir(), '.cache'), 'wren', 'py')
const venvPython = path.join(venvDir, 'bin', 'python')

/** Why the Python SDK tests cannot run here, or null when python3 is available. */
export function pythonUnavailable(): string | null {
  const probe = spawnSync('python3', ['-c', 'import sys, venv; print(sys.version_info >= (3, 9))'], { encoding: 'utf8' })
  if (probe.error || probe.status !== 0)
    return `python3 with the venv module is not installed (${probe.error?.message ?? probe.stderr.trim()})`
  if (probe.stdout.trim() !== 'True') return 'python3 is older than 3.9; posthog-python needs 3.9+'
  return null
}

function run(cmd: string, args: string[]): Promise<void> {
  return new Promise((resolve, reject) => {
    const child = spawn(cmd, args, { stdio: ['ignore', 'pipe', 'pipe'] })
    let out = ''
    child.stdout.on('data', (d: Buffer) => (out += d.toString()))
    child.stderr.on('data', (d: Buffer) => (out += d.toString()))
    child.once('error', reject)
    child.once('exit', (code) => (code === 0 ? resolve() : reject(new Error(`${cmd} ${args.join(' ')} exited with ${code}:\n${out}`))))
  })
}

/** The venv's python, creating the venv and installing posthog from PyPI when they are missing. */
export async function posthogPython(): Promise<string> {
  const importable = () => existsSync(venvPython) && spawnSync(venvPython, ['-c', 'import posthog'], { encoding: 'utf8' }).status === 0
  if (importable()) return venvPython
  if (!existsSync(venvPython)) await run('python3', ['-m', 'venv', venvDir])
  await run(venvPython, ['-m', 'pip', 'install', '--quiet', '--disable-pip-version-check', 'posthog'])
  if (!importable()) throw new Error(`posthog is still not importable from ${venvPython}`)
  return venvPython
}

/** Runs a Python script with `input` as JSON on stdin and parses the JSON it prints. */
export function runPythonJson<T>(python: string, script: string, input: unknown, timeoutMs = 120_000): Promise<T> {
  return new Promise((resolve, reject) => {
    const child = spawn(python, [script], { stdio: ['pipe', 'pipe', 'pipe'], env: { ...process.env, PYTHONUNBUFFERED: '1' } })
    let stdout = ''
    let stderr = ''
    const timer = setTimeout(() => child.kill('SIGKILL'), timeoutMs)
    child.stdout.on('data', (d: Buffer) => (stdout += d.toString()))
    child.stderr.on('data', (d: Buffer) => (stderr += d.toString()))
    child.once('error', reject)
    child.once('exit', (code, signal) => {
      clearTimeout(timer)
      if (code !== 0) return reject(new Error(`${path.basename(script)} exited with ${code ?? signal}:\n${stderr}`))
      try {
        resolve(JSON.parse(stdout) as T)
      } catch {
        reject(new Error(`${path.basename(script)} printed no JSON:\n${stdout}\n${stderr}`))
      }
    })
    child.stdin.end(JSON.stringify(input))
  })
}
