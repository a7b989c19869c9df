// Build the browser app's generated files (no bundler): the library (src/) copied to
// app/lib/ and @msgpack/msgpack's ES module build copied to app/vendor/msgpack/, and the
// weapon catalogue (server/rules/data/weapons.json: open information, names, kinds and
// template shapes for drawing and describing attacks) copied to app/weapons.json. The army
// catalogue is not copied: the app reads GET /api/armies.
import { cpSync, mkdirSync, rmSync } from "node:fs";
import { dirname, join } from "node:path";
import { fileURLToPath } from "node:url";

const root = join(dirname(fileURLToPath(import.meta.url)), "..");
const app = join(root, "app");

rmSync(join(app, "lib"), { recursive: true, force: true });
cpSync(join(root, "src"), join(app, "lib"), { recursive: true });
rmSync(join(app, "vendor"), { recursive: true, force: true });
rmSync(join(app, "armies.json"), { force: true }); // left over from older builds
mkdirSync(join(app, "vendor"), { recursive: true });
cpSync(join(root, "node_modules", "@msgpack", "msgpack", "dist.esm"), join(app, "vendor", "msgpack"),
  { recursive: true, filter: (path) => !path.endsWith(".map") && !path.endsWith(".d.ts") });
cpSync(join(root, "..", "server", "rules", "data", "weapons.json"), join(app, "weapons.json"));
console.log("built app/lib, app/vendor/msgpack and app/weapons.json");
