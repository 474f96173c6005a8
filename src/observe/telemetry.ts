import type { AttemptRecord, RequestRecord, Telemetry } from './record.js';

/** Every telemetry sink behind one object, so the request path makes one call per event. */
export class TelemetryHub {
  constructor(
    private readonly sinks: ReadonlyArray<
      Telemetry & { requestStarted?(endpoint: string): void; requestEnded?(endpoint: string): void }
    > = [],
  ) {}

  /** Whether any sink listens (a request's record is made only for a reader). */
  get active(): boolean {
    return this.sinks.length > 0;
  }

  requestStarted(endpoint: string): void {
    for (const s of this.sinks) s.requestStarted?.(endpoint);
  }

  requestEnded(endpoint: string): void {
    for (const s of this.sinks) s.requestEnded?.(endpoint);
  }

  onRequest(
    record: RequestRecord,
    detail: { attempts: readonly AttemptRecord[]; traceparent?: string; startEpochMs: number },
  ): void {
    for (const s of this.sinks) {
      try {
        s.onRequest(record, detail);
      } catch {
        // A telemetry sink must never fail a request.
      }
    }
  }

  async close(): Promise<void> {
    await Promise.all(this.sinks.map((s) => s.close().catch(() => undefined)));
  }
}
