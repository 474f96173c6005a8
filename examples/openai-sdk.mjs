// The official OpenAI SDK, pointed at the gateway. Run `npx gateway serve` first.
import OpenAI from 'openai';

const client = new OpenAI({
  baseURL: process.env.GATEWAY_URL ?? 'http://127.0.0.1:4000/v1',
  apiKey: process.env.GATEWAY_KEY ?? 'local-dev-key', // a gateway key, not a provider key
});

const completion = await client.chat.completions.create({
  model: 'team/fast', // an alias; `local/echo` would name a concrete model
  messages: [{ role: 'user', content: 'Hello through the gateway' }],
});
console.log(completion.choices[0].message.content);

const stream = await client.chat.completions.create({
  model: 'slow/echo',
  stream: true,
  messages: [{ role: 'user', content: 'watch these words arrive one by one' }],
});
for await (const chunk of stream) process.stdout.write(chunk.choices[0]?.delta?.content ?? '');
process.stdout.write('\n');
