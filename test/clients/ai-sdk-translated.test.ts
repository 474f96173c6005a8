/**
 * AI SDK cells that need translation across formats (issue 11 §2): structured output, reasoning
 * and mid-conversation system messages between callers and models of different formats (OpenAI
 * chat, Anthropic messages, OpenAI Responses: the default @ai-sdk/openai model on a chat or an
 * Anthropic model, the other providers on a Responses model). Same case modules as the same-format cells.
 */
import {
  describeMidConversationSystem,
  describeReasoning,
  describeStructuredOutput,
  OUTPUT_FORMAT,
} from './ai-sdk-cases.js';
import {
  ANT_ALIAS,
  ANT_MODEL,
  OAI_ALIAS,
  OAI_REASONING_MODEL,
  RESP_ALIAS,
  RESP_MODEL,
  useClientRig,
} from './client-gateway.js';

(globalThis as { AI_SDK_LOG_WARNINGS?: boolean }).AI_SDK_LOG_WARNINGS = false;

const rig = useClientRig();

describeStructuredOutput(
  () => `${rig.gw.url}/v1`,
  [
    { client: 'openai.chat', model: ANT_ALIAS, upstream: 'anthropic', how: 'response_format json_schema' },
    { client: 'openai.chat', model: ANT_MODEL, upstream: 'anthropic', how: 'response_format json_schema' },
    { client: 'openai-compatible', model: ANT_ALIAS, upstream: 'anthropic', how: 'response_format json_object' },
    {
      client: 'anthropic',
      model: OAI_ALIAS,
      upstream: 'openai',
      how: 'output_config.format',
      providerOptions: OUTPUT_FORMAT,
    },
    { client: 'openai', model: OAI_ALIAS, upstream: 'openai', how: 'text.format json_schema' },
    { client: 'openai', model: ANT_ALIAS, upstream: 'anthropic', how: 'text.format json_schema' },
    { client: 'openai', model: ANT_MODEL, upstream: 'anthropic', how: 'text.format json_schema' },
    { client: 'openai.chat', model: RESP_ALIAS, upstream: 'responses', how: 'response_format json_schema' },
    { client: 'openai-compatible', model: RESP_ALIAS, upstream: 'responses', how: 'response_format json_object' },
    { client: 'anthropic', model: RESP_ALIAS, upstream: 'responses', how: 'forced json tool' },
    {
      client: 'anthropic',
      model: RESP_ALIAS,
      upstream: 'responses',
      how: 'output_config.format',
      providerOptions: OUTPUT_FORMAT,
    },
  ],
);

describeReasoning(
  () => `${rig.gw.url}/v1`,
  () => rig.up.accepted.at(-1)?.body,
  [
    {
      client: 'anthropic',
      model: OAI_REASONING_MODEL,
      upstream: 'openai',
      how: 'thinking enabled',
      providerOptions: { anthropic: { thinking: { type: 'enabled', budgetTokens: 1024 } } },
      reasoningText: false,
    },
    {
      client: 'anthropic',
      model: OAI_REASONING_MODEL,
      upstream: 'openai',
      how: 'adaptive thinking, effort',
      providerOptions: { anthropic: { thinking: { type: 'adaptive' }, effort: 'low' } },
      reasoningText: false,
    },
    {
      client: 'openai',
      model: ANT_MODEL,
      upstream: 'anthropic',
      how: 'reasoningEffort, reasoningSummary',
      providerOptions: { openai: { forceReasoning: true, reasoningEffort: 'low', reasoningSummary: 'auto' } },
      reasoningText: true,
    },
    {
      client: 'openai.chat',
      model: RESP_MODEL,
      upstream: 'responses',
      how: 'reasoningEffort',
      providerOptions: { openai: { reasoningEffort: 'low' } },
      reasoningText: false,
    },
    {
      client: 'anthropic',
      model: RESP_MODEL,
      upstream: 'responses',
      how: 'thinking enabled',
      providerOptions: { anthropic: { thinking: { type: 'enabled', budgetTokens: 1024 } } },
      reasoningText: false,
    },
  ],
);

describeMidConversationSystem(
  () => `${rig.gw.url}/v1`,
  () => rig.up.accepted.at(-1),
  [
    { client: 'anthropic', model: OAI_ALIAS, upstream: 'openai' },
    { client: 'anthropic', model: RESP_ALIAS, upstream: 'responses' },
    { client: 'openai.chat', model: RESP_ALIAS, upstream: 'responses' },
    { client: 'openai', model: OAI_ALIAS, upstream: 'openai' },
    { client: 'openai', model: ANT_ALIAS, upstream: 'anthropic' },
  ],
);
