/**
 * Parent side of a dispatcher/worker child process. Protocol over the IPC channel:
 *   parent -> child: {type:'init', config} | {type:'go'} | {type:'mark'} | {type:'stop'}
 *   child -> parent: {type:'ready'} | {type:'started'} | {type:'marked'} | {type:'stopped', stats} | {type:'error', message}
 * `ready` means connected and idle; `go` starts dispatching; `mark` resets the child's counters
 * (phase timings, CPU) after the warm-up; `stop` drains the batch in flight, closes pools and
 * agents, reports stats and exits.
 */
const { fork } = require('node:child_process');

class RunnerProcess {
  constructor(script, config) {
    this.exited = false;
    // BENCH_RUNNER_NODE_ARGS: extra node flags for the runners, e.g. `--cpu-prof --cpu-prof-dir=/tmp/prof`.
    const execArgv = [...process.execArgv, ...(process.env.BENCH_RUNNER_NODE_ARGS ?? '').split(' ').filter(Boolean)];
    this.child = fork(script, [], { stdio: ['ignore', 'inherit', 'inherit', 'ipc'], serialization: 'advanced', execArgv });
    this.child.on('exit', () => {
      this.exited = true;
    });
    this.messages = [];
    this.pending = [];
    this.child.on('message', (m) => {
      const i = this.pending.findIndex((p) => p.type === m.type || m.type === 'error');
      if (i >= 0) {
        const [p] = this.pending.splice(i, 1);
        if (m.type === 'error') p.reject(new Error(`${script}: ${m.message}`));
        else p.resolve(m);
      } else this.messages.push(m);
    });
    this.child.on('exit', (code, signal) => {
      for (const p of this.pending.splice(0)) p.reject(new Error(`${script} exited (${code ?? signal}) while waiting for ${p.type}`));
    });
    this.child.send({ type: 'init', config });
  }

  /** The next message of `type` (or an error the child reported). */
  next(type, timeoutMs = 60_000) {
    const i = this.messages.findIndex((m) => m.type === type || m.type === 'error');
    if (i >= 0) {
      const [m] = this.messages.splice(i, 1);
      return m.type === 'error' ? Promise.reject(new Error(m.message)) : Promise.resolve(m);
    }
    if (this.exited) return Promise.reject(new Error(`runner exited before ${type}`));
    return new Promise((resolve, reject) => {
      const timer = setTimeout(() => reject(new Error(`no ${type} from the runner within ${timeoutMs} ms`)), timeoutMs);
      this.pending.push({
        type,
        resolve: (m) => {
          clearTimeout(timer);
          resolve(m);
        },
        reject: (e) => {
          clearTimeout(timer);
          reject(e);
        },
      });
    });
  }

  go() {
    this.child.send({ type: 'go' });
  }

  async mark() {
    this.child.send({ type: 'mark' });
    await this.next('marked');
  }

  async stop() {
    if (this.exited) return undefined;
    this.child.send({ type: 'stop' });
    const { stats } = await this.next('stopped', 60_000);
    await new Promise((resolve) => (this.exited ? resolve() : this.child.once('exit', resolve)));
    return stats;
  }

  /** Last resort on errors: SIGKILL this child (by its own pid, nothing else). */
  kill() {
    if (!this.exited) this.child.kill('SIGKILL');
  }
}

module.exports = { RunnerProcess };
