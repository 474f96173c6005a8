/** The `Examples:` section at the end of each command's --help. */
import type { Command } from 'commander';

/** [command line, what it does]; test/cli/help.test.ts checks every flag used exists. */
export type Example = readonly [line: string, comment: string];

export const EXAMPLES: Readonly<Record<string, readonly Example[]>> = {
  gateway: [
    ['gateway serve', 'start with $GATEWAY_CONFIG, ./gateway.yaml or ./gateway.example.yaml'],
    ['gateway check-config gateway.yaml', 'validate a config offline'],
    ['gateway models --role developer', 'what a role may use'],
    ['gateway providers', 'is every provider reachable, and are its credentials accepted?'],
    ['gateway <command> --help', 'options and examples of one command'],
  ],
  serve: [
    ['gateway serve', 'config: $GATEWAY_CONFIG, else ./gateway.yaml, else ./gateway.example.yaml'],
    ['gateway serve -c gateway.yaml --port 8080', 'a config file and port of your choice'],
    ['gateway serve --host 0.0.0.0 --watch', 'listen on every interface, reload on edits'],
  ],
  'check-config': [
    ['gateway check-config', 'the file serve would use'],
    ['gateway check-config gateway.yaml', 'a given file (-c gateway.yaml works too)'],
    ['gateway check-config -c gateway.yaml --json', 'machine-readable, for CI'],
  ],
  models: [
    ['gateway models', 'every model and alias in the config'],
    ['gateway models --role developer', 'what a role may use'],
    ['gateway models --key "$GATEWAY_KEY" --json', "what this key's role may use, as JSON"],
    ['gateway models --url http://127.0.0.1:4000', "a running gateway's list for $GATEWAY_KEY"],
  ],
  'count-tokens': [
    ['gateway count-tokens request.json', 'for the "model" the request names'],
    ['gateway count-tokens -m team/fast --json request.json', 'for another model or alias, as JSON'],
    ["echo 'How long is this?' | gateway count-tokens -m local/echo", 'plain text from stdin'],
    ['gateway count-tokens -m team/fast --key "$GATEWAY_KEY" -', "a body on stdin, checked against the key's role"],
  ],
  budgets: [
    ['gateway budgets', 'spend, limit and reset of each budget'],
    ['gateway budgets -c gateway.yaml --json', 'as JSON, from a given config'],
  ],
  providers: [
    ['gateway providers', 'credentials, reachability and latency of every provider'],
    ['gateway providers --provider openai anthropic --timeout-ms 2000', 'some providers, a shorter time limit'],
    ['gateway providers --probe --json', 'also one tiny request per model (costs tokens), as JSON for CI'],
  ],
};

/** Appends the examples for `cmd` (by its name) to its --help: each comment on the line above. */
export function withExamples(cmd: Command): Command {
  const examples = EXAMPLES[cmd.name()];
  if (!examples) return cmd;
  const lines = examples.map(([line, comment]) => `  # ${comment}\n  $ ${line}`);
  return cmd.addHelpText('after', `\nExamples:\n${lines.join('\n')}`);
}
