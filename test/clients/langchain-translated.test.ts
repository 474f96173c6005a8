/**
 * LangChain cells that need translation across formats (issue 11 §2): structured output, reasoning
 * and mid-conversation system messages between an OpenAI-format caller and an Anthropic-format
 * model or the reverse, stream usage in translated Anthropic streams. Same case modules as the
 * same-format cells.
 */
import { ANT_ALIAS, OAI_ALIAS, OAI_REASONING_MODEL, useClientRig } from './client-gateway.js';
import { describeReasoning, describeStreamUsage, describeStructuredOutput } from './langchain-cases.js';

const rig = useClientRig();

// Translated Anthropic stream: message_start.usage.input_tokens is 0 (OpenAI reports usage last).
describeStreamUsage(() => rig.gw.url, [{ client: 'ChatAnthropic', model: OAI_ALIAS, upstream: 'openai' }]);

describeStructuredOutput(
  () => rig.gw.url,
  [
    { client: 'ChatOpenAI', model: ANT_ALIAS, upstream: 'anthropic' },
    { client: 'ChatOpenAI', model: ANT_ALIAS, upstream: 'anthropic', method: 'jsonMode' },
    { client: 'ChatAnthropic', model: OAI_ALIAS, upstream: 'openai', method: 'jsonSchema' },
  ],
);

describeReasoning(
  () => rig.gw.url,
  () => rig.up.accepted.at(-1)?.body,
  [{ client: 'ChatAnthropic', model: OAI_REASONING_MODEL, upstream: 'openai', how: 'thinking', reasoningText: false }],
);
