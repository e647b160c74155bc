// The long-lived child processes a test file starts (Wren, a Kafka broker, the ClickHouse fixture) end with the
// file's process, whatever the test left behind: a beforeAll that timed out never hands its processes to the
// afterAll that would stop them, and vitest ends a file's process with SIGTERM, which runs no exit handler of
// its own. A child left running keeps its CPU and ports through every later file of the run.
import type { ChildProcess } from 'node:child_process'

const running = new Set<ChildProcess>()

function killAll(): void {
  for (const child of running) if (child.exitCode === null && child.signalCode === null) child.kill('SIGKILL')
}

process.once('exit', killAll)
process.once('SIGTERM', () => {
  killAll()
  process.exit(143)
})

/** `child`, killed when this process ends if it still runs then. */
export function endsWithThisProcess<T extends ChildProcess>(child: T): T {
  running.add(child)
  child.once('exit', () => running.delete(child))
  return child
}
