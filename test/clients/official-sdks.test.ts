/**
 * The official SDKs on the strict upstream: what test/conformance/ does on the lenient scripted
 * upstream, plus structured output, the Anthropic stream's message_start usage and the parallel
 * tool round trip checked by an upstream that refuses what the real APIs refuse.
 */
import { ANT_ALIAS, ANT_MODEL, OAI_ALIAS, OAI_MODEL, useClientRig } from './client-gateway.js';
import { describeCases, type CaseName } from './official-sdk-cases.js';

const rig = useClientRig();

const OPENAI_BASICS: CaseName[] = [
  'openai: create, usage, x-gateway-model',
  'openai: stream with include_usage',
  'openai: parallel tool round trip',
  'openai: parallel tool round trip, streamed',
];
const ANTHROPIC_BASICS: CaseName[] = [
  'anthropic: create, usage, x-gateway-model',
  'anthropic: parallel tool round trip',
  'anthropic: parallel tool round trip, streamed',
];
const OPENAI_STRUCTURED: CaseName[] = [
  'openai: parse with zodResponseFormat (json_schema)',
  'openai: stream with zodResponseFormat (json_schema)',
  'openai: json_object',
];
const ANTHROPIC_STRUCTURED: CaseName[] = [
  'anthropic: parse with zodOutputFormat (output_config.format)',
  'anthropic: stream with zodOutputFormat (output_config.format)',
];
const ANTHROPIC_STREAM: CaseName[] = ['anthropic: stream, message_start usage complete and non-zero'];

// Same format both ends, and translations that need no structured-output or usage mapping.
describeCases(
  () => rig.gw.url,
  [
    {
      upstream: 'openai',
      model: OAI_ALIAS,
      concrete: OAI_MODEL,
      cases: [...OPENAI_BASICS, ...OPENAI_STRUCTURED, ...ANTHROPIC_BASICS],
    },
    {
      upstream: 'anthropic',
      model: ANT_ALIAS,
      concrete: ANT_MODEL,
      cases: [...OPENAI_BASICS, ...ANTHROPIC_BASICS, ...ANTHROPIC_STREAM, ...ANTHROPIC_STRUCTURED],
    },
  ],
);
