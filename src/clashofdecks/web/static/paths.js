// The page's addresses: which page a path opens, and with what.  No DOM (tests/js/paths.test.js).

// [page, argument]: a game, a replay, a player by handle, or a page without one; any other address is
// "not found" (the server answers it with status 404).
export function pageOf(path) {
  let m;
  if ((m = path.match(/^\/g\/([A-Za-z0-9]+)$/))) return ["game", m[1]];
  if ((m = path.match(/^\/r\/([A-Za-z0-9]+)$/))) return ["replay", m[1]];
  if (path === "/rules") return ["rules", null];
  if (path === "/tutorial") return ["tutorial", null];
  if ((m = path.match(/^\/puzzle\/([A-Za-z0-9]{1,40})$/))) return ["puzzle", m[1]];
  if (path === "/account") return ["account", null];
  if (path === "/leaderboard") return ["leaderboard", null];
  if (path === "/t/new") return ["newtournament", null];  // a tournament's id is hex: never "new"
  if ((m = path.match(/^\/t\/([A-Za-z0-9]+)$/))) return ["tournament", m[1]];
  if ((m = path.match(/^\/p\/([A-Za-z0-9_.-]+)$/))) return ["player", m[1]];
  if (path === "/" || path === "") return ["lobby", null];
  return ["notfound", path];
}

// The seat tokens of an invite link's fragment (#t=a,b), whether it offers a rated duel (&rated=1)
// and whether its creator offers hints (&hints=1).
export function inviteOf(hash) {
  const frag = new URLSearchParams(hash.replace(/^#/, ""));
  const tokens = (frag.get("t") || "").split(",").filter(Boolean);
  return { tokens, rated: frag.get("rated") === "1" && tokens.length > 0, hints: frag.get("hints") === "1" && tokens.length > 0, hasTokens: !!frag.get("t") };
}
