// Build the browser app's generated files (no bundler): the library (src/) copied to
// app/lib/, @msgpack/msgpack's ES module build copied to app/vendor/msgpack/, and the
// sample army catalogue (id, name, faction, points) read from the rules core's data files
// into app/armies.json, because the server has no route listing the armies.
import { cpSync, mkdirSync, readdirSync, readFileSync, rmSync, writeFileSync } from "node:fs";
import { dirname, join } from "node:path";
import { fileURLToPath } from "node:url";

const root = join(dirname(fileURLToPath(import.meta.url)), "..");
const app = join(root, "app");

rmSync(join(app, "lib"), { recursive: true, force: true });
cpSync(join(root, "src"), join(app, "lib"), { recursive: true });
rmSync(join(app, "vendor"), { recursive: true, force: true });
mkdirSync(join(app, "vendor"), { recursive: true });
cpSync(join(root, "node_modules", "@msgpack", "msgpack", "dist.esm"), join(app, "vendor", "msgpack"),
  { recursive: true, filter: (path) => !path.endsWith(".map") && !path.endsWith(".d.ts") });

const armiesDir = join(root, "..", "server", "rules", "data", "armies");
const armies = readdirSync(armiesDir).filter((name) => name.endsWith(".json")).sort().map((name) => {
  const army = JSON.parse(readFileSync(join(armiesDir, name), "utf8"));
  return { id: army.id, name: army.name, faction: army.faction, format: army.format, points: army.points,
    description: army.description ?? "" };
});
writeFileSync(join(app, "armies.json"), JSON.stringify(armies, null, 2));
console.log(`built app/lib, app/vendor/msgpack and app/armies.json (${armies.length} armies)`);
