/**
 * Checks a value against the JSON Schema that TypeBox emits for the settings file, for the few
 * keywords that schema uses (type, const, anyOf, properties, required, additionalProperties,
 * patternProperties, items, minItems, pattern, minimum). The first problem is returned with its
 * path; null = valid.
 */
export interface JsonSchema {
  type?: string;
  const?: unknown;
  anyOf?: JsonSchema[];
  properties?: Record<string, JsonSchema>;
  required?: string[];
  additionalProperties?: boolean | JsonSchema;
  patternProperties?: Record<string, JsonSchema>;
  items?: JsonSchema;
  minItems?: number;
  pattern?: string;
  minimum?: number;
}

export interface CheckProblem {
  /** The key path, e.g. ['a2a', 'flow']. */
  path: string[];
  /** `unknown` = a key the schema does not have; `type` = a value of the wrong type. */
  kind: 'unknown' | 'type';
}

function typeOk(type: string | undefined, v: unknown): boolean {
  switch (type) {
    case undefined:
      return true;
    case 'object':
      return typeof v === 'object' && v !== null && !Array.isArray(v);
    case 'array':
      return Array.isArray(v);
    case 'number':
      return typeof v === 'number' && Number.isFinite(v);
    case 'integer':
      return Number.isInteger(v);
    default:
      return typeof v === type;
  }
}

export function checkJson(schema: JsonSchema, value: unknown, path: string[] = []): CheckProblem | null {
  if (schema.anyOf) return schema.anyOf.some((s) => checkJson(s, value, path) === null) ? null : { path, kind: 'type' };
  if (!typeOk(schema.type, value)) return { path, kind: 'type' };
  if ('const' in schema && schema.const !== value) return { path, kind: 'type' };
  if (schema.pattern !== undefined && typeof value === 'string' && !new RegExp(schema.pattern).test(value)) return { path, kind: 'type' };
  if (schema.minimum !== undefined && typeof value === 'number' && value < schema.minimum) return { path, kind: 'type' };
  if (Array.isArray(value)) {
    if (schema.minItems !== undefined && value.length < schema.minItems) return { path, kind: 'type' };
    for (const [i, item] of value.entries()) {
      const p = schema.items ? checkJson(schema.items, item, [...path, String(i)]) : null;
      if (p) return { path, kind: 'type' };
    }
    return null;
  }
  if (schema.type !== 'object') return null;
  const obj = value as Record<string, unknown>;
  for (const key of schema.required ?? []) if (!(key in obj)) return { path: [...path, key], kind: 'type' };
  for (const [key, v] of Object.entries(obj)) {
    const sub =
      schema.properties?.[key] ??
      Object.entries(schema.patternProperties ?? {}).find(([re]) => new RegExp(re).test(key))?.[1] ??
      (typeof schema.additionalProperties === 'object' ? schema.additionalProperties : undefined);
    if (!sub) {
      if (schema.additionalProperties === false) return { path: [...path, key], kind: 'unknown' };
      continue;
    }
    const p = checkJson(sub, v, [...path, key]);
    if (p) return p;
  }
  return null;
}
