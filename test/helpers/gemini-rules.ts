/**
 * The strict checks of the Gemini fake upstream (gemini-upstream.ts): what the real Generative
 * Language API refuses with 400 INVALID_ARGUMENT, written from its reference. Each returns the
 * message of the first problem, or undefined. Shares no code with src/.
 * @see https://ai.google.dev/api/generate-content
 */

type Obj = Record<string, unknown>;
const isObj = (v: unknown): v is Obj => typeof v === 'object' && v !== null && !Array.isArray(v);

const REQUEST_FIELDS = ['contents', 'systemInstruction', 'tools', 'toolConfig', 'generationConfig', 'safetySettings'];
const PART_DATA = ['text', 'inlineData', 'fileData', 'functionCall', 'functionResponse'];
const PART_FIELDS = [...PART_DATA, 'thought', 'thoughtSignature'];
const GENERATION_FIELDS = [
  'maxOutputTokens',
  'stopSequences',
  'temperature',
  'topP',
  'topK',
  'candidateCount',
  'responseMimeType',
  'responseSchema',
  'responseJsonSchema',
  'thinkingConfig',
  'seed',
];
const THINKING_FIELDS = ['includeThoughts', 'thinkingBudget', 'thinkingLevel'];
const SCHEMA_FIELDS = [
  'type',
  'format',
  'title',
  'description',
  'nullable',
  'enum',
  'maxItems',
  'minItems',
  'properties',
  'required',
  'minProperties',
  'maxProperties',
  'minLength',
  'maxLength',
  'pattern',
  'example',
  'anyOf',
  'propertyOrdering',
  'default',
  'items',
  'minimum',
  'maximum',
];
const SCHEMA_TYPES = ['STRING', 'NUMBER', 'INTEGER', 'BOOLEAN', 'ARRAY', 'OBJECT'];

function unknownField(o: Obj, known: string[], at: string): string | undefined {
  const extra = Object.keys(o).find((k) => !known.includes(k));
  return extra === undefined
    ? undefined
    : `Invalid JSON payload received. Unknown name "${extra}" at '${at}': Cannot find field.`;
}

/** Gemini 2.5 and later think, and sign their function calls. */
export function thinks(model: string): boolean {
  return /^gemini-(2\.5|3)/.test(model);
}

export function checkRequest(body: unknown, model: string, signatures: ReadonlySet<string>): string | undefined {
  if (!isObj(body)) return 'Invalid JSON payload received.';
  return (
    unknownField(body, REQUEST_FIELDS, '') ??
    checkContents(body.contents, model, signatures) ??
    checkSystem(body.systemInstruction) ??
    checkTools(body.tools) ??
    checkGeneration(body.generationConfig, model)
  );
}

function checkSystem(v: unknown): string | undefined {
  if (v === undefined) return undefined;
  if (!isObj(v) || !Array.isArray(v.parts)) return "Invalid value at 'system_instruction'.";
  return v.parts.every((p) => isObj(p) && typeof p.text === 'string')
    ? undefined
    : 'system_instruction parts: text only';
}

function checkContents(contents: unknown, model: string, signatures: ReadonlySet<string>): string | undefined {
  if (!Array.isArray(contents) || contents.length === 0)
    return '* GenerateContentRequest.contents: contents is not specified';
  for (const [i, c] of contents.entries()) {
    if (!isObj(c) || (c.role !== 'user' && c.role !== 'model'))
      return `Please use a valid role: user, model. (contents[${i}])`;
    if (!Array.isArray(c.parts) || c.parts.length === 0)
      return `* GenerateContentRequest.contents[${i}].parts: contents.parts must not be empty.`;
    for (const [j, p] of c.parts.entries()) {
      const problem = checkPart(p, `contents[${i}].parts[${j}]`, c.role);
      if (problem) return problem;
    }
  }
  return (
    checkCallPairs(contents as Obj[]) ?? (thinks(model) ? checkSignatures(contents as Obj[], signatures) : undefined)
  );
}

function checkPart(p: unknown, at: string, role: unknown): string | undefined {
  if (!isObj(p)) return `Invalid value at '${at}'.`;
  const unknown = unknownField(p, PART_FIELDS, at);
  if (unknown) return unknown;
  const data = PART_DATA.filter((k) => p[k] !== undefined);
  if (data.length !== 1)
    return `* GenerateContentRequest.${at}.data: required oneof field 'data' must have one initialized field`;
  if (p.functionCall !== undefined) {
    const fc = p.functionCall;
    if (role !== 'model') return `${at}: a functionCall belongs in a model turn`;
    if (!isObj(fc) || typeof fc.name !== 'string' || (fc.args !== undefined && !isObj(fc.args)))
      return `Invalid value at '${at}.function_call'.`;
    return unknownField(fc, ['name', 'args'], `${at}.function_call`);
  }
  if (p.functionResponse !== undefined) {
    const fr = p.functionResponse;
    if (role !== 'user') return `${at}: a functionResponse belongs in a user turn`;
    if (!isObj(fr) || typeof fr.name !== 'string' || !isObj(fr.response))
      return `Invalid value at '${at}.function_response'.`;
    return unknownField(fr, ['name', 'response'], `${at}.function_response`);
  }
  if (p.inlineData !== undefined) {
    const d = p.inlineData;
    if (!isObj(d) || typeof d.mimeType !== 'string' || typeof d.data !== 'string' || !/^[A-Za-z0-9+/=]*$/.test(d.data))
      return `Invalid value at '${at}.inline_data'.`;
  }
  return undefined;
}

/** Each user turn answering calls answers every call of the model turn before it, by name. */
function checkCallPairs(contents: Obj[]): string | undefined {
  for (const [i, c] of contents.entries()) {
    const responses = (c.parts as Obj[]).filter((p) => p.functionResponse !== undefined);
    if (responses.length === 0) continue;
    const prev = contents[i - 1];
    const calls = prev?.role === 'model' ? (prev.parts as Obj[]).filter((p) => p.functionCall !== undefined) : [];
    const names = calls.map((p) => (p.functionCall as Obj).name);
    const answered = responses.map((p) => (p.functionResponse as Obj).name);
    if (calls.length !== responses.length || answered.some((n) => !names.includes(n)))
      return (
        'Please ensure that the number of function response parts is equal to the number of function call parts ' +
        'of the function call turn.'
      );
  }
  return undefined;
}

/**
 * The current turn (from the last user content that is not only function responses): each model
 * step's first function call carries a signature this upstream issued.
 */
function checkSignatures(contents: Obj[], signatures: ReadonlySet<string>): string | undefined {
  let start = 0;
  contents.forEach((c, i) => {
    if (c.role === 'user' && (c.parts as Obj[]).some((p) => p.functionResponse === undefined)) start = i;
  });
  for (let i = start; i < contents.length; i++) {
    const c = contents[i];
    if (c.role !== 'model') continue;
    const first = (c.parts as Obj[]).find((p) => p.functionCall !== undefined);
    if (!first) continue;
    const name = (first.functionCall as Obj).name;
    if (typeof first.thoughtSignature !== 'string')
      return (
        'Function call is missing a thought_signature in functionCall parts. ' +
        `Function call \`${name}\`, position ${i + 1}.`
      );
    if (!signatures.has(first.thoughtSignature)) return `Corrupted thought signature (function call \`${name}\`).`;
  }
  return undefined;
}

function checkTools(tools: unknown): string | undefined {
  if (tools === undefined) return undefined;
  if (!Array.isArray(tools)) return "Invalid value at 'tools'.";
  for (const [i, t] of tools.entries()) {
    if (!isObj(t) || !Array.isArray(t.functionDeclarations)) return `Invalid value at 'tools[${i}]'.`;
    for (const [j, d] of t.functionDeclarations.entries()) {
      const at = `tools[${i}].function_declarations[${j}]`;
      if (!isObj(d) || typeof d.name !== 'string') return `* GenerateContentRequest.${at}.name: name is required`;
      const problem =
        unknownField(d, ['name', 'description', 'parameters'], at) ??
        (d.parameters === undefined ? undefined : checkSchema(d.parameters, `${at}.parameters`));
      if (problem) return problem;
    }
  }
  return undefined;
}

function checkSchema(s: unknown, at: string): string | undefined {
  if (!isObj(s)) return `Invalid value at '${at}'.`;
  const unknown = unknownField(s, SCHEMA_FIELDS, at);
  if (unknown) return unknown;
  if (s.type !== undefined && !SCHEMA_TYPES.includes(s.type as string)) return `Invalid value at '${at}.type'.`;
  if (s.type === 'OBJECT' && s.properties !== undefined && Object.keys(s.properties as Obj).length === 0)
    return `* GenerateContentRequest.${at}.properties: should be non-empty for OBJECT type`;
  for (const [k, v] of Object.entries(isObj(s.properties) ? s.properties : {})) {
    const problem = checkSchema(v, `${at}.properties[${k}]`);
    if (problem) return problem;
  }
  if (s.items !== undefined) return checkSchema(s.items, `${at}.items`);
  return undefined;
}

function checkGeneration(g: unknown, model: string): string | undefined {
  if (g === undefined) return undefined;
  if (!isObj(g)) return "Invalid value at 'generation_config'.";
  const unknown = unknownField(g, GENERATION_FIELDS, 'generation_config');
  if (unknown) return unknown;
  if (g.thinkingConfig === undefined) return undefined;
  if (!thinks(model)) return 'Thinking is not supported for this model.';
  return isObj(g.thinkingConfig)
    ? unknownField(g.thinkingConfig, THINKING_FIELDS, 'generation_config.thinking_config')
    : "Invalid value at 'generation_config.thinking_config'.";
}
