// Generates TypeScript for the .proto files under proto/: message classes on
// google-protobuf's jspb.Message, and the service's call paths.
//
//   node proto/generate.mjs            write the generated files
//   node proto/generate.mjs --check    exit 1 if they are not up to date
//
// No JavaScript code generator for protoc installs offline here, so this one
// asks Debian's protoc (package protobuf-compiler) for the parsed descriptor
// and emits code from it. It covers what our protos use — proto3 singular
// scalar and enum fields, nested enums, unary methods — and refuses the rest
// loudly rather than generating something wrong.
import { execFileSync } from 'node:child_process'
import { mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs'
import { tmpdir } from 'node:os'
import { dirname, join, relative } from 'node:path'
import { fileURLToPath } from 'node:url'

import descriptors from 'google-protobuf/google/protobuf/descriptor_pb.js'

/** @typedef {import('google-protobuf/google/protobuf/descriptor_pb.js').DescriptorProto} DescriptorProto */
/** @typedef {import('google-protobuf/google/protobuf/descriptor_pb.js').EnumDescriptorProto} EnumDescriptorProto */
/** @typedef {import('google-protobuf/google/protobuf/descriptor_pb.js').FileDescriptorProto} FileDescriptorProto */
/** @typedef {{ ts: string, zero: string, io: string, set: string, isSet: (value: string) => string }} Scalar */

const { FileDescriptorSet, FieldDescriptorProto } = descriptors

const protoRoot = dirname(fileURLToPath(import.meta.url))
export const PROTO_FILES = ['edgeauth/v1/edge_auth_metadata.proto']

const T = FieldDescriptorProto.Type
/**
 * proto scalar → TypeScript type, default, and the jspb reader/writer/setter names.
 * @type {Partial<Record<number, Scalar>>}
 */
const SCALARS = {
  [T.TYPE_STRING]: { ts: 'string', zero: "''", io: 'String', set: 'setProto3StringField', isSet: (v) => `${v}.length > 0` },
  [T.TYPE_BOOL]: { ts: 'boolean', zero: 'false', io: 'Bool', set: 'setProto3BooleanField', isSet: (v) => v },
  [T.TYPE_INT32]: { ts: 'number', zero: '0', io: 'Int32', set: 'setProto3IntField', isSet: (v) => `${v} !== 0` },
  [T.TYPE_UINT32]: { ts: 'number', zero: '0', io: 'Uint32', set: 'setProto3IntField', isSet: (v) => `${v} !== 0` },
  [T.TYPE_DOUBLE]: { ts: 'number', zero: '0', io: 'Double', set: 'setProto3FloatField', isSet: (v) => `${v} !== 0` },
  [T.TYPE_FLOAT]: { ts: 'number', zero: '0', io: 'Float', set: 'setProto3FloatField', isSet: (v) => `${v} !== 0` },
  [T.TYPE_ENUM]: { ts: 'number', zero: '0', io: 'Enum', set: 'setProto3EnumField', isSet: (v) => `${v} !== 0` }
}

/**
 * @param {string} message
 * @returns {never}
 */
function fail (message) {
  throw new Error(`proto/generate.mjs: ${message}`)
}

/** @param {string} file */
function descriptorSet (file) {
  const folder = mkdtempSync(join(tmpdir(), 'threshold-proto-'))
  try {
    const out = join(folder, 'descriptor.bin')
    execFileSync('protoc', ['-I', protoRoot, `--descriptor_set_out=${out}`, join(protoRoot, file)], { stdio: ['ignore', 'ignore', 'inherit'] })
    return FileDescriptorSet.deserializeBinary(new Uint8Array(readFileSync(out)))
  } finally {
    rmSync(folder, { recursive: true, force: true })
  }
}

/** @param {string} text */
const upperFirst = (text) => text[0].toUpperCase() + text.slice(1)
/** @param {string} name */
const camel = (name) => name.replace(/_([a-z0-9])/g, (_, /** @type {string} */ letter) => letter.toUpperCase())

/**
 * @param {string} name
 * @param {EnumDescriptorProto} descriptor
 */
function enumCode (name, descriptor) {
  const values = descriptor.getValueList().map((value) => `  ${value.getName()}: ${value.getNumber()}`).join(',\n')
  return `/** Values of ${descriptor.getName()}. proto3 enums are open: numbers not listed here are kept as they are. */
export const ${name} = {
${values}
} as const
export type ${name} = number
`
}

/** @param {DescriptorProto} message */
function messageCode (message) {
  const name = message.getName()
  const nestedEnums = message.getEnumTypeList()
  if (message.getNestedTypeList().length > 0) fail(`${name}: nested messages are not supported`)
  if (message.getOneofDeclList().length > 0) fail(`${name}: oneof is not supported`)

  const fields = message.getFieldList().map((field) => {
    if (field.getLabel() === FieldDescriptorProto.Label.LABEL_REPEATED) fail(`${name}.${field.getName()}: repeated fields are not supported`)
    const scalar = SCALARS[field.getType() ?? -1]
    if (scalar === undefined) fail(`${name}.${field.getName()}: field type ${field.getType()} is not supported`)
    return { number: field.getNumber(), property: camel(field.getName()), accessor: upperFirst(camel(field.getName())), scalar }
  })

  const enums = nestedEnums.map((nested) => enumCode(`${name}_${nested.getName()}`, nested)).join('\n')
  const statics = nestedEnums.map((nested) => `  static readonly ${nested.getName()} = ${name}_${nested.getName()}\n`).join('')
  const accessors = fields.map((field) => `
  get${field.accessor} (): ${field.scalar.ts} {
    return jspb.Message.getFieldWithDefault(this, ${field.number}, ${field.scalar.zero}) as ${field.scalar.ts}
  }

  set${field.accessor} (value: ${field.scalar.ts}): this {
    jspb.Message.setField(this, ${field.number}, value)
    return this
  }
`).join('')
  const writes = fields.map((field) => `    const ${field.property} = message.get${field.accessor}()
    if (${field.scalar.isSet(field.property)}) writer.write${field.scalar.io}(${field.number}, ${field.property})
`).join('')
  const reads = fields.map((field) => `        case ${field.number}:
          message.set${field.accessor}(reader.read${field.scalar.io}())
          break
`).join('')
  const objectType = fields.map((field) => `${field.property}: ${field.scalar.ts}`).join(', ')
  const objectValue = fields.map((field) => `${field.property}: this.get${field.accessor}()`).join(', ')

  return `${enums}${enums === '' ? '' : '\n'}export class ${name} extends jspb.Message {
${statics}${statics === '' ? '' : '\n'}  constructor (data?: jspb.Message.MessageArray | null) {
    super()
    jspb.Message.initialize(this, data ?? [], 0, -1, null, null)
  }
${accessors}
  override serializeBinary (): Uint8Array {
    const writer = new jspb.BinaryWriter()
    ${name}.serializeBinaryToWriter(this, writer)
    return writer.getResultBuffer()
  }

  static override serializeBinaryToWriter (message: ${name}, writer: jspb.BinaryWriter): void {
${writes}  }

  static override deserializeBinary (bytes: Uint8Array): ${name} {
    return ${name}.deserializeBinaryFromReader(new ${name}(), new jspb.BinaryReader(bytes))
  }

  static override deserializeBinaryFromReader (message: ${name}, reader: jspb.BinaryReader): ${name} {
    while (reader.nextField()) {
      if (reader.isEndGroup()) break
      switch (reader.getFieldNumber()) {
${reads}        default:
          reader.skipField()
      }
    }
    return message
  }

  toObject (): { ${objectType} } {
    return { ${objectValue} }
  }
}
`
}

/** @param {FileDescriptorProto} file */
function serviceCode (file) {
  /** @type {string[]} */
  const lines = []
  for (const service of file.getServiceList()) {
    const fullName = `${file.getPackage()}.${service.getName()}`
    const constant = service.getName().replace(/([a-z0-9])([A-Z])/g, '$1_$2').toUpperCase()
    lines.push(`/** Full name of the ${service.getName()} service. */`, `export const ${constant} = '${fullName}'`, '')
    for (const method of service.getMethodList()) {
      if (method.getClientStreaming() || method.getServerStreaming()) fail(`${method.getName()}: streaming methods are not supported`)
      const methodConstant = method.getName().replace(/([a-z0-9])([A-Z])/g, '$1_$2').toUpperCase()
      lines.push(
        `/** gRPC-web path of ${method.getName()} (${method.getInputType().slice(1)} → ${method.getOutputType().slice(1)}). */`,
        `export const ${methodConstant}_PATH = '/${fullName}/${method.getName()}'`,
        ''
      )
    }
  }
  return lines.join('\n')
}

/** @param {string} protoFile */
function header (protoFile) {
  return `// Generated by proto/generate.mjs from ${protoFile}. Do not edit: change the .proto and run \`npm run proto:generate\`.\n`
}

/**
 * The generated files for one .proto: path → contents.
 * @param {string} protoFile
 */
export function generate (protoFile) {
  const set = descriptorSet(protoFile)
  const file = set.getFileList().find((candidate) => candidate.getName() === protoFile)
  if (file === undefined) fail(`protoc returned no descriptor for ${protoFile}`)
  if (file.getSyntax() !== 'proto3') fail(`${protoFile}: only proto3 is supported`)
  if (file.getEnumTypeList().length > 0) fail(`${protoFile}: top-level enums are not supported`)
  const base = join(protoRoot, protoFile.replace(/\.proto$/, ''))
  return {
    [`${base}_pb.ts`]: `${header(protoFile)}import * as jspb from 'google-protobuf'\n\n${file.getMessageTypeList().map(messageCode).join('\n')}`,
    [`${base}_service.ts`]: `${header(protoFile)}\n${serviceCode(file)}`
  }
}

function main () {
  const check = process.argv.includes('--check')
  let stale = 0
  for (const protoFile of PROTO_FILES) {
    for (const [path, contents] of Object.entries(generate(protoFile))) {
      const current = (() => { try { return readFileSync(path, 'utf8') } catch { return null } })()
      if (current === contents) continue
      if (check) {
        console.error(`out of date: ${relative(process.cwd(), path)}`)
        stale++
      } else {
        writeFileSync(path, contents)
        console.log(`wrote ${relative(process.cwd(), path)}`)
      }
    }
  }
  if (stale > 0) process.exit(1)
}

if (process.argv[1] === fileURLToPath(import.meta.url)) main()
