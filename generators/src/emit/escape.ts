// The one place spec text is escaped for generated code: every emitter writes a spec string (a doc, a
// string default, a Relay or ONNX name, an attribute key) through these, never by pasting it into a template.

/** A TypeScript literal with single-quoted strings: quotes, backslashes, `${`, backticks and line breaks survive. */
export function literal(v: unknown): string {
  const json = JSON.stringify(v);
  if (json === undefined) return 'undefined';
  // JSON's escapes are valid TypeScript; only the quote style changes (and U+2028/9 are escaped for older parsers).
  return json
    .replace(/"((?:[^"\\]|\\.)*)"/g, (_, body: string) => `'${body.replace(/\\"/g, '"').replace(/'/g, "\\'")}'`)
    .replace(/\u2028/g, '\\u2028')
    .replace(/\u2029/g, '\\u2029');
}

/** A single-quoted string literal. */
export const str = (s: string): string => literal(String(s));

/** An object key: bare when it is an identifier, a string literal otherwise. */
export const key = (k: string): string => (/^[A-Za-z_$][A-Za-z0-9_$]*$/.test(k) ? k : str(k));

/** Text inside a JSDoc block: `*\/` would end the comment early. */
export const docText = (s: string): string => s.replace(/\*\//g, '*\\/').replace(/\r\n?/g, '\n');

/** Text inside a `//` line comment: a line break would end it and turn the rest into code. */
export const lineComment = (s: string): string => s.replace(/[\r\n\u2028\u2029]+/g, ' ');
