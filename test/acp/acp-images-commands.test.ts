// `skein acp` with images and the eight slash commands, driven by the ACP
// SDK's own client: an image block reaches the model (the predictable model
// names it and hashes its bytes), and /clear, /fork, /export, /rewind,
// /model, /mode, /help and /compact are offered and answered the ACP way.
import { createHash } from 'node:crypto';
import fs from 'node:fs';
import path from 'node:path';
import { PROTOCOL_VERSION } from '@agentclientprotocol/sdk';
import { afterEach, describe, expect, it } from 'vitest';
import { SLASH_COMMANDS } from '../../shared/slash-commands.js';
import { png } from '../helpers/images.js';
import { tempDir } from '../helpers/temp-dir.js';
import { until } from '../helpers/until.js';
import { agentText, startAcp, updatesOf, type AcpRun } from './acp-client.js';

const runs: AcpRun[] = [];
afterEach(async () => {
  for (const run of runs.splice(0)) await run.close();
});

const SLOW = { timeout: 300_000 };

describe('skein acp: images and slash commands', () => {
  it('takes an image block, and offers and answers every slash command', SLOW, async () => {
    const dataDir = tempDir('acp-data');
    const work = tempDir('acp-work');
    const run = startAcp({ SKEIN_DATA_DIR: dataDir, SKEIN_WORKDIR: work });
    runs.push(run);
    const init = await run.connection.agent.request('initialize', { protocolVersion: PROTOCOL_VERSION, clientCapabilities: {} });
    expect(init.agentCapabilities?.promptCapabilities).toMatchObject({ image: true, embeddedContext: true });
    const { sessionId: id } = await run.connection.agent.request('session/new', { cwd: work, mcpServers: [] });
    const prompt = (text: string, more: object[] = []) => run.connection.agent.request('session/prompt', { sessionId: id, prompt: [{ type: 'text', text }, ...more] as never });
    const said = () => agentText(run, id);

    // The same eight commands as the web composer.
    await until(() => updatesOf(run, id, 'available_commands_update').length > 0, 'the commands');
    const offered = (updatesOf(run, id, 'available_commands_update')[0] as { availableCommands: { name: string; input?: { hint: string } }[] }).availableCommands;
    expect(offered.map((c) => c.name)).toEqual(SLASH_COMMANDS.map((c) => c.name.slice(1)));
    expect(offered.find((c) => c.name === 'rewind')!.input!.hint).toContain('event number');

    // An image: it reaches the model whole (the predictable model hashes the bytes it was sent).
    const picture = png(16, 12);
    const sha = createHash('sha256').update(picture).digest('hex').slice(0, 12);
    expect((await prompt('echo: what is it?', [{ type: 'image', mimeType: 'image/png', data: picture.toString('base64') }])).stopReason).toBe('end_turn');
    expect(said()).toContain(`I see an image: PNG image, 16x12, ${picture.length} bytes, sha256 ${sha}.`);
    // Refused with a reason: a type skein does not take, bytes that are no image.
    await expect(prompt('look', [{ type: 'image', mimeType: 'image/bmp', data: picture.toString('base64') }])).rejects.toMatchObject({ code: -32602, message: expect.stringContaining('image/bmp') });
    await expect(prompt('look', [{ type: 'image', mimeType: 'image/png', data: Buffer.from('no image').toString('base64') }])).rejects.toMatchObject({ code: -32602 });

    // /rewind: two writes, the list of points, then the files back to before the second.
    const file = path.join(work, 'notes.txt');
    await prompt('tool: write_file {"path":"notes.txt","content":"one\\n"}');
    await prompt('tool: write_file {"path":"notes.txt","content":"two\\n"}');
    expect(fs.readFileSync(file, 'utf8')).toBe('two\n');
    await prompt('/rewind');
    const point = new RegExp(String.raw`/rewind (\d+): before "tool: write_file \{"path":"notes.txt","content":"two`).exec(said());
    expect(point, said()).not.toBeNull();
    await prompt(`/rewind ${point![1]}`);
    expect(fs.readFileSync(file, 'utf8')).toBe('one\n');
    expect(said()).toContain(`Rewound the files to event ${point![1]}:\n- notes.txt: restore`);
    expect(said()).toContain('-two\n+one');
    await prompt('/rewind soon');
    expect(said()).toContain('/rewind takes an event number');

    // /export: the Markdown transcript as a resource.
    await prompt('/export');
    const exported = updatesOf(run, id, 'agent_message_chunk').map((u) => (u as { content: { type: string; resource?: { mimeType: string; text: string } } }).content).find((c) => c.type === 'resource');
    expect(exported!.resource!.mimeType).toBe('text/markdown');
    expect(exported!.resource!.text).toContain('echo: what is it?');
    expect(exported!.resource!.text).toMatch(/\*\[PNG image, 16x12, \d+ bytes: \w+\.png\]\*/);

    // /fork and /clear: new sessions, their ids said (and in _meta), each loadable.
    const newIds = () => updatesOf(run, id, 'agent_message_chunk').map((u) => (u as { _meta?: { skein?: { sessionId?: string } } })._meta?.skein?.sessionId).filter((s): s is string => Boolean(s));
    await prompt('/fork');
    const forked = newIds().at(-1)!;
    expect(said()).toContain(`into ${forked}. Open it with session/load.`);
    await prompt('/clear');
    const cleared = newIds().at(-1)!;
    expect(cleared).not.toBe(forked);
    expect(said()).toContain(`Started a new session ${cleared} in ${work}`);
    await run.connection.agent.request('session/load', { sessionId: forked, cwd: work, mcpServers: [] });
    // The fork's history comes back with the image itself.
    const replayedImage = updatesOf(run, forked, 'user_message_chunk').map((u) => (u as { content: { type: string; data?: string } }).content).find((c) => c.type === 'image');
    expect(replayedImage!.data).toBe(picture.toString('base64'));
    await run.connection.agent.request('session/load', { sessionId: cleared, cwd: work, mcpServers: [] });
    expect(updatesOf(run, cleared, 'user_message_chunk')).toEqual([]);

    // /model, /mode, /help, /compact.
    await prompt('/model');
    expect(said()).toContain('/model takes a model name');
    await prompt('/mode plan');
    expect(said()).toContain('Approval mode: plan.');
    await prompt('/help');
    for (const c of SLASH_COMMANDS) expect(said()).toContain(`- ${c.name}`);
    expect((await prompt('/compact keep the notes')).stopReason).toBe('end_turn');
    expect(said()).toMatch(/⟳ compacted \(manual/);
  });
});
