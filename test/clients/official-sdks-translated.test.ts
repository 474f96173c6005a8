/**
 * official-SDK cells that need translation across formats (issue 11 §2): structured output between
 * callers and models of different formats (OpenAI chat, Anthropic messages, OpenAI Responses), stream
 * usage in translated Anthropic streams. Same case modules as the same-format cells.
 */
import { ANT_ALIAS, ANT_MODEL, OAI_ALIAS, OAI_MODEL, RESP_ALIAS, RESP_MODEL, useClientRig } from './client-gateway.js';
import { describeCases } from './official-sdk-cases.js';

const rig = useClientRig();

describeCases(rig, [
  {
    upstream: 'openai',
    model: OAI_ALIAS,
    concrete: OAI_MODEL,
    cases: [
      'anthropic: stream, message_start usage complete and non-zero',
      'anthropic: parse with zodOutputFormat (output_config.format)',
      'anthropic: stream with zodOutputFormat (output_config.format)',
      'responses: parse with zodTextFormat (text.format json_schema)',
    ],
  },
  {
    upstream: 'anthropic',
    model: ANT_ALIAS,
    concrete: ANT_MODEL,
    cases: [
      'openai: parse with zodResponseFormat (json_schema)',
      'openai: stream with zodResponseFormat (json_schema)',
      'openai: json_object',
      'responses: parse with zodTextFormat (text.format json_schema)',
    ],
  },
  {
    upstream: 'responses',
    model: RESP_ALIAS,
    concrete: RESP_MODEL,
    cases: [
      'openai: parse with zodResponseFormat (json_schema)',
      'openai: stream with zodResponseFormat (json_schema)',
      'openai: json_object',
      'anthropic: stream, message_start usage complete and non-zero',
      'anthropic: parse with zodOutputFormat (output_config.format)',
      'anthropic: stream with zodOutputFormat (output_config.format)',
    ],
  },
]);
