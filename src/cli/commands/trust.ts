import { resolveSettings } from '../../config/settings.js';
import { SynapseError } from '../../errors.js';
import { projectKey } from '../../registry/project.js';
import { decisionFor, projectTrustCheck, recordDecision, revokeDecisions, trustFilePath, trustsEveryProject } from '../../registry/project-trust.js';
import { printJson, println, type CommandIo } from '../io.js';
import { describeSubject } from '../project-trust.js';

export interface TrustFlags {
  revoke?: boolean;
  show?: boolean;
  json?: boolean;
}

/**
 * `synapse trust [--show | --revoke] [--json]`: the user's say about the `env` and `hooks` of this
 * project's settings files. Without a flag it trusts exactly what they hold now (a change is asked
 * about again); `--revoke` forgets every decision about the project; `--show` only tells.
 */
export function trustCommand(flags: TrustFlags, io: CommandIo): void {
  if (flags.revoke && flags.show) throw new SynapseError('usage', '--revoke and --show do not go together');
  const base = io.baseEnv ?? io.env;
  const project = projectKey(io.cwd);
  const trustFile = trustFilePath(base);
  if (flags.revoke) {
    const revoked = revokeDecisions(io.cwd, base);
    if (flags.json) return printJson(io, { action: 'revoked', project, trust_file: trustFile, revoked });
    println(
      io,
      revoked
        ? `revoked: agents started from now on in ${project} run without the project's env and hooks until you trust them again (running agents keep theirs: restart them)`
        : `nothing to revoke: no decision about ${project}`,
    );
    return;
  }
  const resolved = resolveSettings(io.cwd, base, projectTrustCheck(base));
  const subject = resolved.projectTrust?.subject ?? null;
  // An agent's CLI runs its commands with SYNAPSE_AGENT_ID set: trusting is the person's call, not its.
  if (!flags.show && subject && io.env.SYNAPSE_AGENT_ID)
    throw new SynapseError(
      'usage',
      `synapse trust runs inside agent ${io.env.SYNAPSE_AGENT_ID}: trusting a project's commands is your decision; run it yourself in a terminal of your own`,
    );
  const earlier = subject ? decisionFor(subject, base) : null;
  const decision = subject && !flags.show ? recordDecision(subject, 'trusted', base) : earlier;
  const everyProject = trustsEveryProject(resolved.env);
  if (flags.json)
    return printJson(io, {
      action: flags.show ? 'shown' : subject ? 'trusted' : 'nothing',
      project,
      trust_file: trustFile,
      hash: subject?.hash ?? null,
      files: subject?.parts ?? [],
      decision: decision?.decision ?? null,
      decided_at: decision?.at ?? null,
      applied: subject ? everyProject || decision?.decision === 'trusted' : null,
      trusts_every_project: everyProject,
    });
  if (!subject) {
    println(io, `nothing to trust: the settings files of ${io.cwd} set no env and run no hooks`);
    return;
  }
  const listing = describeSubject(subject);
  if (!flags.show) {
    println(io, `trusted (${subject.hash.slice(0, 12)}) for ${project}:\n${listing}`);
    println(io, 'Agents started from now on apply them; running agents keep what they started with (restart them). A change to them is asked about again.');
    return;
  }
  const state = everyProject
    ? 'applied: SYNAPSE_TRUST_PROJECT_HOOKS=1 trusts every project'
    : decision?.decision === 'trusted'
      ? `trusted (${decision.at})`
      : decision?.decision === 'denied'
        ? `NOT applied: you declined them (${decision.at}); \`synapse trust\` applies them`
        : 'NOT applied: not trusted yet; `synapse trust` applies them';
  println(io, `project ${project}\n${listing}\n${state}`);
}
