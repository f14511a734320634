-- busted specs for the docs as a whole (issue 50): every guide the README lists ends with a worked
-- example that ctest docs_examples runs (a ```console block), and no guide or module header calls a
-- feature tilewave has built "not modeled" or "left out".
local lfs = require "lfs"

local function read(path)
  local f = assert(io.open(path))
  local s = f:read("a")
  f:close()
  return s
end

-- features built, each a Lua pattern (lower case: sentences are matched lower-cased), and where each is (a guide saying otherwise is wrong)
local BUILT = {
  { "speculative decoding", "tilewave.cost.speculative, serve speculative" },
  { "sliding.window kv", "models.kv_windows" },
  { "continuous batching", "tilewave.serve" },
  { "causal.mask skipping", "layers.causal_elems" },
  { "chunked prefill", "serve schedulers" },
}
local DENIALS = { "not modeled", "not modelled", "not simulated", "left out", "leaves out", "ignored" }

-- sentences of `text`: a blank line or a heading ends a paragraph, "." and a space a sentence
local function sentences(text)
  local out = {}
  for para in (text:gsub("\n#", "\n\n#") .. "\n\n"):gmatch("(.-)\n\n+") do
    for s in (para:gsub("\n", " ") .. ". "):gmatch("(.-%.)%s+") do
      if s:match("%S") then out[#out + 1] = s end
    end
  end
  return out
end

local function denies_built(path)
  local bad = {}
  for _, s in ipairs(sentences(read(path))) do
    local low = s:lower()
    for _, d in ipairs(DENIALS) do
      local at = low:find(d, 1, true)
      if at then
        for _, f in ipairs(BUILT) do
          -- the feature named after the denial, in the same clause ("Not modeled: X, Y")
          if low:find(f[1], at) then bad[#bad + 1] = ("%s: '%s' (built: %s)"):format(path, s, f[2]) end
        end
      end
    end
  end
  return bad
end

describe("the docs", function()
  it("end every guide the README lists with a checked worked example", function()
    local readme = read("README.md")
    local guides = {}
    for g in readme:gmatch("%(docs/([%w_]+%.md)%)") do guides[#guides + 1] = g end
    assert.is_true(#guides >= 14)
    for _, g in ipairs(guides) do
      assert.truthy(read("docs/" .. g):find("\n```console\n%$ build/tilewave "), "docs/" .. g .. " has no console example")
    end
  end)

  it("never call a built feature not modeled, in a guide or a module header", function()
    local bad = {}
    for f in lfs.dir("docs") do
      if f:match("%.md$") then for _, b in ipairs(denies_built("docs/" .. f)) do bad[#bad + 1] = b end end
    end
    for _, m in ipairs { "serve/simulate.lua", "cost/inference.lua", "cost/forward.lua", "serve/size.lua" } do
      for _, b in ipairs(denies_built("lua/tilewave/" .. m)) do bad[#bad + 1] = b end
    end
    assert.same({}, bad)
  end)

  it("catches a guide that calls speculative decoding not modeled", function()
    local path = os.tmpname()
    local f = assert(io.open(path, "w"))
    f:write("Decode is priced per step. Not modeled: speculative decoding, paged-KV overheads.\n")
    f:close()
    local bad = denies_built(path)
    os.remove(path)
    assert.equal(1, #bad)
  end)
end)
