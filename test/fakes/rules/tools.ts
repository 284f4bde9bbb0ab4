// What each API accepts as tool declarations, and the 400 it gives otherwise
// (wording from the APIs' refusals as clients reported them). An MCP server
// may offer any name and any JSON Schema; skein must send only what the
// provider takes, or the whole request fails.
import { anthropicRejection } from './anthropic.js';
import { geminiRejection } from './gemini.js';
import { openaiRejection } from './openai.js';
import type { Rejection } from './rejection.js';

export function checkAnthropicTools(tools: unknown): Rejection | undefined {
  for (const [i, t] of asArray(tools).entries()) {
    if (t.type !== undefined && t.type !== 'custom') continue; // server tools (web search...) have their own shape
    if (typeof t.name !== 'string' || !/^[a-zA-Z0-9_-]{1,128}$/.test(t.name)) return anthropicRejection(`tools.${i}.custom.name: String should match pattern '^[a-zA-Z0-9_-]{1,128}$'`);
    if (t.input_schema?.type !== 'object') return anthropicRejection(`tools.${i}.custom.input_schema.type: Input should be 'object'`);
  }
  return undefined;
}

export function checkOpenAITools(tools: unknown, responses = false): Rejection | undefined {
  for (const [i, t] of asArray(tools).entries()) {
    const fn = responses ? t : t.function;
    const at = responses ? `tools[${i}].name` : `tools[${i}].function.name`;
    if (typeof fn?.name !== 'string' || !/^[a-zA-Z0-9_-]+$/.test(fn.name)) {
      return openaiRejection(`Invalid '${at}': string does not match pattern. Expected a string that matches the pattern '^[a-zA-Z0-9_-]+$'.`, at);
    }
    if (fn.name.length > 64) return openaiRejection(`Invalid '${at}': string too long. Expected a string with maximum length 64, but got a string with length ${fn.name.length} instead.`, at);
    if (fn.parameters !== undefined && fn.parameters?.type !== 'object') {
      return openaiRejection(`Invalid schema for function '${fn.name}': schema must be a JSON Schema of 'type: "object"', got 'type: "${String(fn.parameters?.type)}"'.`, responses ? `tools[${i}].parameters` : `tools[${i}].function.parameters`);
    }
  }
  return undefined;
}

/**
 * Gemini: function names, and the JSON Schema of parametersJsonSchema:
 * `$schema` and `const` are unknown names, a `$ref` takes no sibling but a
 * description or default, `required` may only name defined properties, and
 * the root is an object schema.
 */
export function checkGeminiTools(tools: unknown): Rejection | undefined {
  for (const [ti, tool] of asArray(tools).entries()) {
    for (const [i, d] of asArray(tool.functionDeclarations).entries()) {
      const at = `tools[${ti}].function_declarations[${i}]`;
      if (typeof d.name !== 'string' || !/^[a-zA-Z_][a-zA-Z0-9_.:-]{0,63}$/.test(d.name)) {
        return geminiRejection(`* GenerateContentRequest.${at}.name: Invalid function name. Must start with a letter or an underscore. Must be alphameric (a-z, A-Z, 0-9), underscores (_), dots (.), colons (:) or dashes (-), with a maximum length of 64.\n`);
      }
      const schema = d.parametersJsonSchema ?? d.parameters;
      if (schema === undefined) continue;
      if (schema.type !== 'object' && String(schema.type).toUpperCase() !== 'OBJECT') return geminiRejection(`* GenerateContentRequest.${at}.parameters_json_schema: the schema must describe an object\n`);
      const problem = schemaProblem(schema, `${at}.parameters_json_schema`);
      if (problem) return geminiRejection(problem);
    }
  }
  return undefined;
}

function schemaProblem(node: any, at: string): string | undefined {
  if (Array.isArray(node)) {
    for (const [i, n] of node.entries()) {
      const p = schemaProblem(n, `${at}[${i}]`);
      if (p) return p;
    }
    return undefined;
  }
  if (typeof node !== 'object' || node === null) return undefined;
  for (const key of ['$schema', 'const']) {
    if (key in node) return `Invalid JSON payload received. Unknown name "${key}" at '${at}': Cannot find field.`;
  }
  if ('$ref' in node && Object.keys(node).some((k) => k !== '$ref' && k !== 'description' && k !== 'default')) {
    return `* GenerateContentRequest.${at}: a schema with $ref may only have description and default beside it\n`;
  }
  if (Array.isArray(node.required)) {
    for (const [i, name] of node.required.entries()) {
      if (!(node.properties && name in node.properties)) return `* GenerateContentRequest.${at}.required[${i}]: property is not defined\n`;
    }
  }
  for (const [key, value] of Object.entries(node)) {
    if (key === 'properties' && value && typeof value === 'object') {
      for (const [name, prop] of Object.entries(value)) {
        const p = schemaProblem(prop, `${at}.properties[${name}]`);
        if (p) return p;
      }
    } else if (key !== 'enum' && key !== 'default' && key !== 'examples') {
      const p = schemaProblem(value, `${at}.${key}`);
      if (p) return p;
    }
  }
  return undefined;
}

function asArray(value: unknown): any[] {
  return Array.isArray(value) ? value : [];
}
