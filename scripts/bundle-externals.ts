// The packages the server's bundles leave outside (scripts/bundle.ts for the prebuilt server,
// scripts/pack.ts for the `nubis` package): loaded only by some requests or configurations, or
// reading files beside their own code, which a bundle moves. They load from node_modules on first use.

export const externalPackages = new Set([
  'stripe',
  'pdfkit',
  'nodemailer',
  'sshpk',
  'ws',
  'undici',
  '@fastify/swagger',
  '@fastify/swagger-ui',
]);

/** The package a bare specifier names: `@scope/name` or `name`. */
export const packageOf = (specifier: string) => specifier.split('/', specifier.startsWith('@') ? 2 : 1).join('/');
