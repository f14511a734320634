--- tilewave.data.json_stream: one JSON object read member by member from a file, in bounded memory,
-- for result files too large to hold whole (a vLLM `--save-detailed` run of 10,000 prompts is
-- hundreds of MB, most of it the generated texts).
--
-- The file is read in chunks of M.CHUNK bytes. Each top-level member's value is, by its key's
-- handler: "skip" (scanned, never kept: the texts), "sums" (an array of arrays of numbers, each
-- inner array reduced to its sum and count as it is read: vLLM's per-request ITLs), or, for any
-- other key, kept as text and decoded with lua-cjson (the per-request arrays of numbers and the
-- aggregates, small beside the texts). Memory: two chunks, the largest kept value, one inner array.
-- Strings are scanned with their escapes; nesting depth is bounded (M.MAX_DEPTH).
-- @module tilewave.data.json_stream
local M = {}

local format, find, sub = string.format, string.find, string.sub

--- Bytes read at a time.
M.CHUNK = 1 << 20
--- The deepest nesting a value may have.
M.MAX_DEPTH = 64

local function fail(path, what)
  error(format("%s: JSON: expected JSON (%s)", path, what), 0)
end

-- a reader over file `f`: buf holds the unread text from pos; `mark` (when set) keeps the text of
-- a value being kept from being dropped on a refill
local function reader(f, path)
  local R = { buf = "", pos = 1, eof = false, mark = nil, offset = 0 }
  function R.fill()
    if R.eof then return false end
    local c = f:read(M.CHUNK)
    if not c then R.eof = true return false end
    local keep = R.mark and math.min(R.mark, R.pos) or R.pos
    R.offset = R.offset + keep - 1
    R.buf = sub(R.buf, keep) .. c
    -- each refill leaves the old buffer behind: collect every few, so garbage never piles up
    -- to the file's size before Lua's collector would run
    R.fills = (R.fills or 0) + 1
    if R.fills % 8 == 0 then collectgarbage("collect") end
    R.pos = R.pos - keep + 1
    if R.mark then R.mark = R.mark - keep + 1 end
    return true
  end
  -- the next non-space character's index (refilling as needed), or nil at the end
  function R.peek()
    while true do
      local i = find(R.buf, "%S", R.pos)
      if i then R.pos = i return i end
      R.pos = #R.buf + 1
      if not R.fill() then return nil end
    end
  end
  function R.expect(ch, what)
    local i = R.peek()
    if not i or sub(R.buf, i, i) ~= ch then
      fail(path, format("%s at byte %d, got %s", what, R.offset + (i or R.pos),
        i and ("'" .. sub(R.buf, i, i) .. "'") or "the end of the file"))
    end
    R.pos = i + 1
  end
  -- scan one value from pos (after whitespace); returns nothing, pos after it
  function R.scan()
    local i = R.peek()
    if not i then fail(path, "a value, got the end of the file") end
    local depth = 0
    local c = sub(R.buf, i, i)
    if c ~= "{" and c ~= "[" and c ~= '"' then
      -- a number or a literal: up to the next delimiter
      while true do
        local j = find(R.buf, "[,}%]%s]", R.pos)
        if j then R.pos = j return end
        R.pos = #R.buf + 1
        if not R.fill() then return end
      end
    end
    local instr = false
    while true do
      local j = find(R.buf, instr and '["\\]' or '[%[%]{}"]', R.pos)
      if not j then
        R.pos = #R.buf + 1
        if not R.fill() then fail(path, "a closing bracket or quote, got the end of the file") end
      else
        local ch = sub(R.buf, j, j)
        if instr then
          if ch == "\\" then
            if j + 1 > #R.buf then
              R.pos = j
              if not R.fill() then fail(path, "an escape, got the end of the file") end
            else
              R.pos = j + 2
            end
          else
            instr = false
            R.pos = j + 1
            if depth == 0 then return end
          end
        elseif ch == '"' then
          instr, R.pos = true, j + 1
        elseif ch == "[" or ch == "{" then
          depth = depth + 1
          if depth > M.MAX_DEPTH then fail(path, format("at most %d levels of nesting", M.MAX_DEPTH)) end
          R.pos = j + 1
        else
          depth = depth - 1
          R.pos = j + 1
          if depth == 0 then return end
        end
      end
    end
  end
  -- the text of one value
  function R.take()
    R.peek()
    R.mark = R.pos
    R.scan()
    local t = sub(R.buf, R.mark, R.pos - 1)
    R.mark = nil
    return t
  end
  return R
end

--- Read the object in open file `f` (named `path` in messages) member by member.
-- @tparam table handlers key -> "skip" | "sums"
-- @tparam function decode (text, key) -> value, for every other member
-- @tparam[opt] function item (x, key, i, j): checks each number of a "sums" member (raises)
-- @return a table of the members: a "sums" key gives `<key>_sums` and `<key>_counts` (lists), a
--   skipped key `true`
-- @raise `<path>: JSON: expected JSON (...)` naming what was expected and the byte
function M.object(f, path, handlers, decode, item)
  local R = reader(f, path)
  local out = {}
  R.expect("{", "an object")
  local i = R.peek()
  if i and sub(R.buf, i, i) == "}" then return out end
  while true do
    local key = decode(R.take(), nil)
    if type(key) ~= "string" then fail(path, "a member name") end
    R.expect(":", "':' after \"" .. key .. "\"")
    local h = handlers[key]
    if h == "skip" then
      R.scan()
      out[key] = true
    elseif h == "sums" then
      local sums, counts = {}, {}
      R.expect("[", "an array of arrays for \"" .. key .. "\"")
      local j = R.peek()
      if j and sub(R.buf, j, j) == "]" then
        R.pos = j + 1
      else
        while true do
          local inner = decode(R.take(), key)
          if type(inner) ~= "table" then fail(path, format("an array of numbers in \"%s\"", key)) end
          local s = 0
          for jj, x in ipairs(inner) do
            if item then item(x, key, #sums + 1, jj) elseif type(x) ~= "number" then
              fail(path, format("numbers in \"%s\"", key))
            end
            s = s + x
          end
          sums[#sums + 1], counts[#counts + 1] = s, #inner
          local k = R.peek()
          local ch = k and sub(R.buf, k, k)
          R.pos = (k or R.pos) + 1
          if ch == "]" then break end
          if ch ~= "," then fail(path, format("',' or ']' in \"%s\"", key)) end
        end
      end
      out[key .. "_sums"], out[key .. "_counts"] = sums, counts
    else
      out[key] = decode(R.take(), key)
    end
    local k = R.peek()
    local ch = k and sub(R.buf, k, k)
    R.pos = (k or R.pos) + 1
    if ch == "}" then break end
    if ch ~= "," then fail(path, format("',' or '}' after \"%s\", got %s", key, ch and ("'" .. ch .. "'") or "the end")) end
  end
  if R.peek() then fail(path, "nothing after the object") end
  return out
end

return M
