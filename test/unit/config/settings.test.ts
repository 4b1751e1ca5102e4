import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { loadSettings } from '../../../src/config/settings.js';

describe('settings files: absent is the default, corrupt is an error naming the file', () => {
  let home: string;
  let project: string;
  const env = () => ({ HOME: home, SYNAPSE_HOME: path.join(home, '.synapse') });

  beforeEach(() => {
    home = fs.mkdtempSync(path.join(os.tmpdir(), 'synapse-settings-home-'));
    project = fs.mkdtempSync(path.join(os.tmpdir(), 'synapse-settings-project-'));
    fs.mkdirSync(path.join(project, '.synapse'));
  });
  afterEach(() => {
    fs.rmSync(home, { recursive: true, force: true });
    fs.rmSync(project, { recursive: true, force: true });
  });

  it('no settings files: the defaults', () => {
    expect(loadSettings(project, env()).a2a.flow).toBe('auto');
  });

  it('a project file sets the flow; a local file overrides it', () => {
    fs.writeFileSync(path.join(project, '.synapse', 'settings.json'), JSON.stringify({ a2a: { flow: 'roundtrip' } }));
    expect(loadSettings(project, env()).a2a.flow).toBe('roundtrip');
    fs.writeFileSync(path.join(project, '.synapse', 'settings.local.json'), JSON.stringify({ a2a: { flow: 'oneway' } }));
    expect(loadSettings(project, env()).a2a.flow).toBe('oneway');
  });

  it('a settings file that is not JSON is an error that names it', () => {
    const file = path.join(project, '.synapse', 'settings.json');
    fs.writeFileSync(file, '{ "a2a": ');
    expect(() => loadSettings(project, env())).toThrow(`settings file ${file} is not JSON`);
  });

  it('a settings file that holds no object is an error that names it', () => {
    const file = path.join(project, '.synapse', 'settings.local.json');
    fs.writeFileSync(file, '[1, 2]');
    expect(() => loadSettings(project, env())).toThrow(`${file} must hold a JSON object`);
  });
});
