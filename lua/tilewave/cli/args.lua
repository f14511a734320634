--- tilewave.cli.args: the converters of the commands' arguments (argparse `convert` functions
-- that name the field in their message) and the help text the commands share. Each command's
-- options are defined in its own tilewave.cli.<command> module.

local M = {}
local format = string.format

--- The marker M.main puts in front of a negative number's digits so that argparse does not
-- take "-3" for an option; the converters turn it back into "-".
M.NEG = "\u{2212}"

local function unmark(s) return (s:gsub("^" .. M.NEG, "-")) end

--- Convert an argument to an integer (a negative one included: the validator names it).
local function to_int(s)
  s = unmark(s)
  local v = math.tointeger(tonumber(s))
  if v == nil then return nil, format("expected an integer, got '%s'", s) end
  return v
end

--- Convert an argument to a number.
local function to_num(s)
  s = unmark(s)
  local v = tonumber(s)
  if v == nil then return nil, format("expected a number, got '%s'", s) end
  return v
end
M.to_int, M.to_num, M.unmark = to_int, to_num, unmark

-- an argparse converter of one value by `conv` (to_int or to_num), naming `field` in its message:
-- "gemm.k: expected an integer, got '1.5'"
local function one(conv, field)
  return function(s)
    local v, err = conv(s)
    if v == nil then return nil, field .. ": " .. err end
    return v
  end
end

-- an argparse converter of a comma-separated list of `what` ("integers", "numbers") by `conv`,
-- naming `field`: "decode.batch: expected a comma-separated list of integers, got '8,x'"; at most
-- 64 values
local function list(conv, what, field)
  return function(s)
    local out = {}
    for part in (s .. ","):gmatch("([^,]*),") do
      local v = conv(part)
      if v == nil then return nil, format("%s: expected a comma-separated list of %s, got '%s'", field, what, unmark(s)) end
      out[#out + 1] = v
    end
    if #out > 64 then return nil, format("%s: expected at most 64 values, got %d", field, #out) end
    return out
  end
end

--- Converters naming `field` in their messages: one integer, one number, a list of integers
-- ("1,8,32" -> { 1, 8, 32 }), a list of numbers; each value checked by the command's validator.
function M.int_arg(field) return one(to_int, field) end
function M.num_arg(field) return one(to_num, field) end
function M.int_list(field) return list(to_int, "integers", field) end
function M.num_list(field) return list(to_num, "numbers", field) end

--- An argparse converter of `--speculative draft=MODEL,k=K,acceptance=A`
-- (tilewave.cost.speculative).
function M.speculative(s)
  local out, seen = {}, {}
  for part in (s .. ","):gmatch("([^,]*),") do
    local k, v = part:match("^(%a+)=(.+)$")
    if k and seen[k] then return nil, format("speculative.%s: given twice in '%s'", k, s) end
    if k then seen[k] = true end
    if k == "draft" then out.draft = v
    elseif k == "k" and math.tointeger(tonumber(v)) then out.k = math.tointeger(tonumber(v))
    elseif k == "acceptance" and tonumber(v) then out.acceptance = tonumber(v)
    else
      return nil, format("speculative: expected draft=MODEL,k=INTEGER,acceptance=NUMBER, got '%s'", part)
    end
  end
  return out
end

--- The help of every --engine option.
M.ENGINE_HELP = "How software runs the kernels: compiled (fused, CUDA graph), fused (fused, host-launched), "
  .. "eager (PyTorch ops from Python), hf (generate()), llama.cpp, ideal. See tilewave.cost.engines."

--- The default dtype of gemm and roofline: `args.dtype`, else bf16 as every command's, or fp16 on a
-- device without bf16 (V100, T4, P100: no bf16 tensor cores).
-- @raise `<path>: ...` for an unknown device
function M.default_dtype(args, path)
  if args.dtype then return args.dtype end
  local spec = require("tilewave").hw.resolve(args.hw, path)
  return spec.peak_flops.bf16 and "bf16" or "fp16"
end

return M
