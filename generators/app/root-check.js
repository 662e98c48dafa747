// yo refuses root: started as root, it drops to uid 1000 (or SUDO_UID) before it loads a generator, and that user can
// usually neither read root's home (yo's global config, where yo then crashes with a TypeError) nor write the checkout.
// The generators check first and say so, naming the command that works as root.
import { accessSync, constants, statSync } from 'node:fs';
import { homedir } from 'node:os';

const can = (path, mode) => {
  try {
    accessSync(path, mode);
    return true;
  } catch {
    return false;
  }
};
const ownerOf = (path) => {
  try {
    return statSync(path).uid;
  } catch {
    return undefined;
  }
};

/** Why this generator cannot run in this process, or undefined; `sub` is `regen` for raf-op:regen. */
export function rootDropProblem(
  sub,
  {
    uid = process.getuid?.(),
    home = homedir(),
    cwd = process.cwd(),
    readableHome = can(home, constants.R_OK | constants.X_OK),
    writableCwd = can(cwd, constants.W_OK),
    homeOwner = ownerOf(home),
  } = {},
) {
  if (uid === undefined || uid === 0 || (readableHome && writableCwd)) return undefined;
  const command = sub ? `npm run new -- ${sub}` : 'npm run new -- NAME [flags]';
  const dropped = homeOwner === 0;
  const what = [!readableHome && `read ${home}`, !writableCwd && `write ${cwd}`].filter(Boolean).join(' or ');
  return (
    `raf-op: this yo process runs as uid ${uid}, which cannot ${what}.\n` +
    (dropped ? `  yo was started as root and dropped to uid ${uid} (yo refuses to run generators as root).\n` : '') +
    `  hint: as root (a CI container), run the same generator without yo: ${command}` +
    (sub ? '' : ` (npm run new -- regen for raf-op:regen)`) +
    '; or run yo as the user who owns the checkout.'
  );
}

/** Exits with the message when the generator cannot run here (called before the generator loads). */
export function exitOnRootDrop(sub) {
  const problem = rootDropProblem(sub);
  if (problem) {
    console.error(problem);
    process.exit(1);
  }
}
