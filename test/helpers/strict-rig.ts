import { afterAll, beforeAll } from 'vitest';
import { type FakeUpstream, startFakeUpstream } from './fake-upstream.js';
import { strictGateway } from './gateway-config.js';
import { configOf, type RunningGateway, startGateway } from './start-gateway.js';

/**
 * A strict fake upstream with a gateway in front of it (strictGateway), for the file that calls
 * this: started before its tests, closed after. Read `rig.up` / `rig.gw` inside tests.
 */
export function useStrictRig(): { up: FakeUpstream; gw: RunningGateway } {
  const rig = {} as { up: FakeUpstream; gw: RunningGateway };
  beforeAll(async () => {
    rig.up = await startFakeUpstream();
    rig.gw = await startGateway(configOf(strictGateway(rig.up.url)));
  });
  afterAll(async () => {
    await rig.gw?.close();
    await rig.up?.close();
  });
  return rig;
}
