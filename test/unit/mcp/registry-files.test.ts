import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { McpEnvironmentSchema } from '../../../mcp/mcp-environment-schema';
import { SERVER_INFO } from '../../../mcp/server';

// The files the MCP registry reads (docs/mcp.md, "The MCP registry"): server.json, and mcpName in
// package.json, by which the registry checks that the npm package belongs to the server name.
const ROOT = join(import.meta.dirname, '..', '..', '..');
const read = (file: string) => JSON.parse(readFileSync(join(ROOT, file), 'utf8'));
const pkg = read('package.json') as { name: string; version: string; mcpName: string };
const server = read('server.json') as {
  $schema: string;
  name: string;
  description: string;
  version: string;
  packages: {
    registryType: string;
    identifier: string;
    version: string;
    transport: { type: string };
    packageArguments: { type: string; value: string }[];
    environmentVariables: { name: string; description: string }[];
  }[];
};

describe('server.json and package.json are ready for the MCP registry', () => {
  it('server.json names the server as package.json mcpName does, at the package version', () => {
    expect(server.name).toBe(pkg.mcpName);
    expect(server.version).toBe(pkg.version);
    expect(SERVER_INFO.version).toBe(pkg.version); // what the server announces at initialize
  });

  it('its one package is this npm package at this version, run as `reseal mcp` over stdio', () => {
    expect(server.packages).toEqual([
      expect.objectContaining({
        registryType: 'npm',
        identifier: pkg.name,
        version: pkg.version,
        transport: { type: 'stdio' },
        packageArguments: [{ type: 'positional', value: 'mcp' }],
      }),
    ]);
  });

  it("keeps within the registry schema's limits (name pattern, description length, a dated schema)", () => {
    expect(server.$schema).toMatch(
      /^https:\/\/static\.modelcontextprotocol\.io\/schemas\/\d{4}-\d{2}-\d{2}\/server\.schema\.json$/,
    );
    expect(server.name).toMatch(/^[a-zA-Z0-9.-]+\/[a-zA-Z0-9._-]+$/);
    expect(server.description.length).toBeGreaterThan(0);
    expect(server.description.length).toBeLessThanOrEqual(100);
    expect(server.version).toMatch(/^\d+\.\d+\.\d+(-[0-9A-Za-z.-]+)?$/);
  });

  it('lists every variable the server is configured by, each described', () => {
    const listed = server.packages[0]?.environmentVariables ?? [];
    expect(listed.map((v) => v.name)).toEqual(expect.arrayContaining(Object.keys(McpEnvironmentSchema.shape)));
    for (const variable of listed) expect(variable.description.length).toBeGreaterThan(0);
  });
});
