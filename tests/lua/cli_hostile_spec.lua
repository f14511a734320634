-- busted specs: the hostile inputs of issue 13, each run through the `tilewave`
-- executable. Every one must end quickly with exit 1 (bad input) or 2 (usage),
-- one line on stderr naming the field, nothing on stdout, and no path into
-- tilewave's own Lua sources.
local process = dofile("tests/lua/helpers/process.lua")
local function run(args) return process.run(args, 10) end
local H = "tests/lua/fixtures/hostile/"

-- { arguments, exit code, text the one-line message must contain }
local CASES = {
  { "gemm -3 1 1", 1, "gemm.m: expected positive integer, got -3" },
  { "gemm 1 -5 1", 1, "gemm.n: expected positive integer, got -5" },
  { "gemm 5 1 -1.5", 2, "gemm.k: expected an integer, got '-1.5'" },
  { "roofline --flops -1 --bytes 5", 1, "roofline.flops: expected positive number, got -1" },
  { "hw " .. H .. "loop.lua", 1, "loop.lua: exceeds the data-file budget" },
  { "hw " .. H .. "huge_table.lua", 1, "huge_table.lua: exceeds the data-file budget" },
  { "hw " .. H .. "doubling.lua", 1, "doubling.lua: exceeds the data-file memory budget" },
  { "train llama-2-7b --cluster " .. H .. "loop.lua", 1, "loop.lua: exceeds the data-file budget" },
  { "decode llama-2-7b --t 3", 1, "decode.t: expected a divisor of num_attention_heads 32" },
  { "report --models llama-2-7b --t 3", 1, "report.t: expected a divisor of num_attention_heads 32" },
  { "decode llama-2-7b --weight-dtype int4 --group 1", 1, "decode.group: expected an int4 group size" },
  { "decode llama-2-7b --context 8192", 1, "decode.context: expected at most max_position_embeddings 4096" },
  { "report --s 4611686018427387904", 1, "report.s: expected at most max_position_embeddings" },
  { "report --models pythia-70m --s 4611686018427387904 --allow-long-context", 1, "b*s: expected at most 2^31-1" },
  { "train llama-2-7b --global-batch 4611686018427387904", 1, "training.global_batch: expected at most" },
  { "train llama-2-7b --nodes 4611686018427387904", 1, "training.nodes: expected at most 16777216 GPUs" },
  { "train llama-3.1-405b --search", 1, "train.search: no valid configuration" },
  { "report --models ,,,", 1, "report.models: expected at least one model id" },
  { "report --models pythia-70m,pythia-70m", 1, "report.models: 'pythia-70m' is listed twice" },
  { "check " .. H .. "nan_bound.lua", 1, "expect.mfu.min: expected number, got NaN" },
  { "sweep " .. H .. "sweep_no_hw.lua", 1, "sweep.hw: expected a device id or a non-empty list" },
  { "help nosuch", 2, "help: unknown command 'nosuch'" },
  { "help plot nosuch", 2, "help: unknown command 'nosuch' of tilewave plot (commands: roofline, gemm, sweep, decode)" },
  { "help gemm x", 2, "help: unknown command 'x' of tilewave gemm (it has no subcommands)" },
  { "nosuch", 2, "unknown command 'nosuch'" },
}

describe("tilewave CLI on hostile input", function()
  for _, case in ipairs(CASES) do
    it(case[1], function()
      local code, out, err = run(case[1])
      assert.equal(case[2], code)
      assert.equal("", out)
      local msg = err:gsub("\n$", "")
      assert.is_nil(msg:find("\n"), "one line: " .. err)
      assert.truthy(msg:find(case[3], 1, true), err)
      assert.is_nil(msg:find("lua/tilewave/", 1, true), "no path into tilewave's sources: " .. err)
      assert.is_nil(msg:find("internal error", 1, true), err)
    end)
  end

  it("answers --version and help", function()
    local code, out = run("--version")
    assert.equal(0, code)
    assert.truthy(out:match("^tilewave %d+%.%d+%.%d+"))
    code, out = run("help decode")
    assert.equal(0, code)
    assert.truthy(out:find("Usage: tilewave decode", 1, true))
  end)

  it("turns an error from inside tilewave's modules into exit 3 without the path", function()
    local cli = require "tilewave.cli"
    local msg, code = cli.classify("/opt/x/lua/tilewave/cost/training.lua:198: attempt to perform 'n%%0'")
    assert.equal(3, code)
    assert.equal("internal error: attempt to perform 'n%%0' (tilewave.cost.training line 198), please report", msg)
    msg, code = cli.classify("decode.t: expected a divisor of num_attention_heads 32, got 3")
    assert.equal(1, code)
    assert.equal("decode.t: expected a divisor of num_attention_heads 32, got 3", msg)
    msg, code = cli.classify("/home/me/tilewave/hw/mine.lua:3: unexpected symbol") -- a user's file: bad input
    assert.equal(1, code)
  end)
end)

describe("the Lua API on hostile input", function()
  local tw = require "tilewave"
  local function err_of(f, ...)
    local ok, e = pcall(f, ...)
    assert.is_false(ok)
    return e
  end

  it("names the field instead of failing inside a module", function()
    assert.equal("training.sequence_parallel: expected true or false, got string 'yes'",
      err_of(tw.training.step, { model = "llama-2-7b", cluster = "dgx_h100", global_batch = 8, t = 8,
                                 sequence_parallel = "yes" }))
    assert.equal("sweep.hw: expected a device id or a non-empty list of them, got an empty list",
      err_of(tw.sweep, { base = "pythia-70m", vary = { hidden_size = { 512 } }, hw = {} }))
    assert.equal("sweep.batch: expected a non-empty list of batch sizes, got an empty list",
      err_of(tw.inference.sweep, { model = "llama-2-7b", hw = "h100_sxm5", context = 64, batch = {} }))
    local c, msg = tw.models.from_hf_config(nil)
    assert.is_nil(c)
    assert.equal("from_hf_config: expected the path of a config.json, got nil", msg)
    c, msg = tw.models.from_hf_config("/tmp")
    assert.is_nil(c)
    assert.truthy(msg:find("^/tmp: cannot read"))
  end)
end)

