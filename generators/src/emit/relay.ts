// Emitter: FromRelay converters (a Relay call's args and attrs → this op's schema).

import type { Model, OpModel } from '../spec/model.ts';
import { addImport, names, paths, sourceOf, tsFile, type EmittedFile } from './files.ts';
import { key, literal, str } from './escape.ts';

export function emitRelays(model: Model): EmittedFile[] {
  return model.ops.map(emitRelay);
}

function emitRelay(op: OpModel): EmittedFile {
  const path = paths.relay(op.name);
  const n = names(op);
  return tsFile(path, 'relay', sourceOf(op), (sf) => {
    addImport(sf, path, paths.runtime('relay'), ['RelayConverter'], true);
    if (!op.relay) {
      sf.addVariableStatement({
        isExported: true,
        docs: [`raf.op.${op.name} has no Relay mapping.`],
        declarations: [{ name: n.relay, type: 'RelayConverter | null', initializer: 'null' }],
      });
      return;
    }
    addImport(sf, path, paths.runtime('dispatch'), ['invoke']);
    addImport(sf, path, paths.runtime('relay'), ['relayArgs']);
    addImport(sf, path, paths.api(op.name), [n.opDef]);
    const r = op.relay;
    sf.addVariableStatement({
      isExported: true,
      docs: [`Converts a Relay call of ${r.op} into raf.op.${op.name}.`],
      declarations: [
        {
          name: n.relay,
          type: 'RelayConverter | null',
          initializer: `{
            relayOp: ${str(r.op)},
            op: '${op.name}',${Object.keys(r.defaults).length ? `\n            defaults: ${literal(r.defaults)},` : ''}
            convert: (args, attrs) =>
              invoke(${n.opDef}, [], relayArgs(${str(r.op)}, args, attrs, [${r.args.map((a) => `'${a}'`).join(', ')}], { ${Object.entries(
                r.attrs,
              )
                .map(([k, v]) => `${key(k)}: ${str(v)}`)
                .join(', ')} }${Object.keys(r.defaults).length ? `, ${literal(r.defaults)}` : ''})),
          }`,
        },
      ],
    });
  });
}
