// The node half of tools/codegen: TypeScript declarations (json-schema-to-typescript) and standalone
// validators (ajv's standalone code) for each version tools/codegen.py asks for.
//
// stdin: {"metaSchemas": [dialect, vocabulary], "versions": [{"folder", "typesInput", "schemaFiles",
//         "validators": {exportName: "<$id>#/$defs/<Type>"}}]}
// stdout: {"<folder>": {"types": "<.d.ts text>", "validators": "<ES module text>",
//          "validatorsCommonJS": "<the same validators as CommonJS>"}}
//
// Nothing is fetched: ajv gets every schema up front (no loadSchema), and json-schema-to-typescript
// gets one self-contained document whose references are type names (tools/codegen.py made it).
// Compiling in strict mode with the discriminator on is itself a check: any schema ajv would warn
// about fails the run.

import { compile } from "json-schema-to-typescript";
import Ajv2020 from "ajv/dist/2020.js";
import standaloneCode from "ajv/dist/standalone/index.js";

function fail(message) {
  process.stderr.write(`generate.mjs: ${message}\n`);
  process.exit(1);
}

// Warnings are errors: strict mode must be clean, not just pass.
const logger = {
  log() {},
  warn: (...parts) => fail(`ajv warned: ${parts.join(" ")}`),
  error: (...parts) => fail(`ajv error: ${parts.join(" ")}`),
};

function validatorCompiler(metaSchemas, schemaFiles) {
  const ajv = new Ajv2020({
    strict: true,
    discriminator: true,
    allErrors: true, // every problem, as phi-wire's WireError lists them
    inlineRefs: false, // one function per referenced type: a quarter smaller (DateTime's pattern once)
    logger,
    code: { source: true, esm: true, lines: true },
  });
  const vocabulary = metaSchemas.find((schema) => schema.$vocabulary && schema.properties);
  for (const schema of metaSchemas) ajv.addMetaSchema(schema);
  ajv.addVocabulary(Object.keys(vocabulary.properties)); // the x- keywords: annotations only
  for (const schema of schemaFiles) ajv.addSchema(schema);
  return ajv;
}

async function generate(request) {
  const output = {};
  for (const version of request.versions) {
    const types = await compile(version.typesInput, version.typesInput.title, {
      additionalProperties: false, // the declarations describe what phi-core writes: no extras
      bannerComment: "",
      declareExternallyReferenced: true,
      unreachableDefinitions: true,
      unknownAny: true,
      strictIndexSignatures: true,
      format: true,
      $refOptions: { resolve: { external: false } },
    });
    const ajv = validatorCompiler(request.metaSchemas, version.schemaFiles);
    for (const [name, ref] of Object.entries(version.validators)) {
      if (!ajv.getSchema(ref)) fail(`${version.folder}: ${name} (${ref}) does not compile`);
    }
    const validators = standaloneCode(ajv, version.validators);
    ajv.opts.code.esm = false; // the same compiled validators, written with exports.X = ...
    const validatorsCommonJS = standaloneCode(ajv, version.validators);
    output[version.folder] = { types, validators, validatorsCommonJS };
  }
  return output;
}

const chunks = [];
for await (const chunk of process.stdin) chunks.push(chunk);
const request = JSON.parse(Buffer.concat(chunks).toString("utf8"));
process.stdout.write(JSON.stringify(await generate(request)));
