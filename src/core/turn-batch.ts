/**
 * Work gathered over one turn of the event loop and done at its end, all of one kind together.
 * Under load a turn brings many requests at once (at concurrency 32, about a dozen bodies arrive
 * and a dozen responses end per turn), and code run once per request between socket reads and
 * writes runs with cold caches: done back to back, the same work costs much less for all but the
 * first (bench/README.md, "Where the time goes": a log line 10.6 → 6.0 µs, a request's parse and
 * decode 23 → 16 µs). Each batch is one kind of work, so its code stays warm across the batch.
 * Used for request bodies (pipeline/parse-body.ts), complete upstream answers
 * (attempt/upstream-request.ts) and finished requests' reports (observe/end-of-turn.ts).
 */

export interface TurnBatch<T> {
  /** Queues one item; the batch runs at the end of the current turn (setImmediate). */
  add(item: T): void;
  /** Runs what is queued now (and what the run itself queues). */
  flush(): void;
}

/**
 * `run` is called once per item, in the order added. One that throws is reported as a process
 * warning and the others still run (`run` should settle its own item's failures). With `atExit`,
 * what is still queued also runs when the process exits, before the exit hooks registered earlier
 * (log writers flush in theirs).
 */
export function turnBatch<T>(run: (item: T) => void, opts: { atExit?: boolean } = {}): TurnBatch<T> {
  const queue: T[] = [];
  let scheduled = false;
  let exitHooked = false;
  const flush = () => {
    scheduled = false;
    for (let i = 0; i < queue.length; i++) {
      try {
        run(queue[i]);
      } catch (err) {
        process.emitWarning(err as Error);
      }
    }
    queue.length = 0;
  };
  return {
    add(item) {
      queue.push(item);
      if (!scheduled) {
        scheduled = true;
        setImmediate(flush);
      }
      if (opts.atExit && !exitHooked) {
        exitHooked = true;
        process.prependListener('exit', flush);
      }
    },
    flush,
  };
}
