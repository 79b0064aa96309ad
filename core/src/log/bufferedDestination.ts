import pino from 'pino';

/** Bytes gathered before a write; about 15 access lines. */
export const LOG_BUFFER_BYTES = 4096;
/** The longest a line waits in the buffer when fewer bytes than that follow it. */
export const LOG_FLUSH_MS = 200;

export interface BufferedDestinationOptions {
  /** File descriptor or path (2: stderr). */
  dest?: number | string;
  minLength?: number;
  flushMs?: number;
}

/**
 * The log destination of every walletd process: asynchronous (pino's SonicBoom, `sync: false`)
 * and buffered, written when `minLength` bytes have gathered or `flushMs` after the first line of
 * the buffer, whichever comes first.
 *
 * Why buffered: unbuffered, each line at a fixed request rate below saturation (each access line
 * alone) was one `fs.write` through libuv's thread pool, a thread hand-off and a wake-up of the
 * event loop per request: about 50 µs of CPU per request in the API bench (bench/README.md, `api`,
 * issue 34), a tenth of an authenticated read. A burst fills the buffer and writes it at once.
 *
 * Nothing is lost on the way out: pino registers the stream to be flushed synchronously on the
 * process's 'exit' (an uncaught exception or `process.exit` included), and `fatal` flushes it at
 * once; `serve` flushes on SIGTERM and SIGINT. A SIGKILL loses at most the last `flushMs`.
 */
export function bufferedDestination(options: BufferedDestinationOptions = {}): pino.DestinationStream {
  const stream = pino.destination({ dest: options.dest ?? 2, sync: false, minLength: options.minLength ?? LOG_BUFFER_BYTES });
  const flushMs = options.flushMs ?? LOG_FLUSH_MS;
  let timer: NodeJS.Timeout | null = null;
  const flush = () => {
    timer = null;
    try {
      stream.flush();
    } catch {
      // Ended (the process is on its way out, and pino's exit handler wrote what was left).
    }
  };
  const write = stream.write.bind(stream);
  // The timer is armed by the first line after a flush, so an idle process has no wake-ups.
  stream.write = (line: string) => {
    if (timer === null) {
      timer = setTimeout(flush, flushMs);
      timer.unref();
    }
    return write(line);
  };
  return stream;
}
