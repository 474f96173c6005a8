// The official Anthropic SDK, pointed at the gateway (it sends the key as x-api-key, which the
// gateway accepts). Run `npx gateway serve` first.
import Anthropic from '@anthropic-ai/sdk';

const client = new Anthropic({
  baseURL: process.env.GATEWAY_URL ?? 'http://127.0.0.1:4000',
  apiKey: process.env.GATEWAY_KEY ?? 'local-dev-key',
});

const message = await client.messages.create({
  model: 'team/fast',
  max_tokens: 256,
  system: 'You are terse.',
  messages: [{ role: 'user', content: 'Hello through the gateway' }],
});
console.log(message.content.map((b) => (b.type === 'text' ? b.text : '')).join(''));

const stream = client.messages.stream({ model: 'slow/echo', max_tokens: 256, messages: [{ role: 'user', content: 'streamed in the messages format' }] });
stream.on('text', (t) => process.stdout.write(t));
await stream.finalMessage();
process.stdout.write('\n');

const { input_tokens } = await client.messages.countTokens({ model: 'local/echo', messages: [{ role: 'user', content: 'How many tokens is this?' }] });
console.log(`input tokens: ${input_tokens}`);
