/**
 * The layer rule of src/ (checked by test/layers.test.ts in `npm test`): the folders below are in
 * order from the entry points down to the shared base, and a module may import only from its own
 * folder or a folder listed after it. So the data flows one way (plan → pull → assemble →
 * publish), and a lower layer never reaches back into a higher one. CONTRIBUTING.md says what
 * each folder does.
 */
const LAYERS = [
  ['cli.ts', 'index.ts'],
  ['commands'],
  ['cli'],
  ['schedule', 'notify'],
  ['sync'],
  ['push'],
  ['browser'],
  ['serve'],
  ['archive'],
  ['verify'],
  ['git'],
  ['diff'],
  ['sign'],
  ['publish'],
  ['state'],
  ['fetch'],
  ['index'],
  ['config'],
  ['redact'],
  ['validate'],
  ['snapshot'],
  ['spec'],
  ['json'],
  ['log.ts', 'errors.ts'],
  ['util'],
];

/** A path regex for a layer's folders and files under src/. */
const pathOf = (names) => `^src/(${names.map((n) => (n.endsWith('.ts') ? n.replace('.', '\\.') + '$' : `${n}/`)).join('|')})`;

const layerRules = LAYERS.slice(1).map((names, k) => ({
  name: `layer-${names.join('-').replace(/\.ts/g, '')}`,
  comment: `${names.join(', ')} may not import from a layer above it (${LAYERS.slice(0, k + 1).flat().join(', ')})`,
  severity: 'error',
  from: { path: pathOf(names) },
  to: { path: pathOf(LAYERS.slice(0, k + 1).flat()) },
}));

module.exports = {
  forbidden: [
    ...layerRules,
    {
      name: 'upstream-apart',
      comment: 'the simulated service stands apart: it uses only the spec and the shared base, and only commands start it',
      severity: 'error',
      from: { path: '^src/upstream/' },
      to: { path: '^src/', pathNot: '^src/(upstream|spec|json|util)/|^src/errors\\.ts$' },
    },
    {
      name: 'upstream-only-from-commands',
      severity: 'error',
      from: { path: '^src/', pathNot: '^src/(upstream|commands)/' },
      to: { path: '^src/upstream/' },
    },
    {
      name: 'no-circular',
      severity: 'error',
      from: { path: '^src/' },
      to: { circular: true },
    },
    {
      name: 'src-not-tests',
      severity: 'error',
      from: { path: '^src/' },
      to: { path: '^(test|bench|dist)/' },
    },
  ],
  options: {
    doNotFollow: { path: 'node_modules' },
    tsPreCompilationDeps: true,
    tsConfig: { fileName: 'tsconfig.json' },
    enhancedResolveOptions: { exportsFields: ['exports'], conditionNames: ['import', 'require', 'node', 'default', 'types'], extensions: ['.ts', '.js'] },
  },
};
