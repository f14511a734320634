-- tilewave.util.stats: numpy's linear percentile and the population standard deviation, worked by
-- hand (numpy.percentile([1, 2, 3, 4], 25) = 1.75: position 0.25 x 3 = 0.75 between 1 and 2).
local stats = require "tilewave.util.stats"

describe("tilewave.util.stats", function()
  it("takes numpy's linear percentile: position q/100 (n - 1), interpolated", function()
    assert.are.equal(1.75, stats.percentile({ 4, 1, 3, 2 }, 25))
    assert.are.equal(2.5, stats.percentile({ 4, 1, 3, 2 }, 50))
    -- p99 of 1..101: position 99 -> the 100th value
    local v = {}
    for i = 1, 101 do v[i] = i end
    assert.are.equal(100, stats.percentile(v, 99))
    assert.are.equal(101, stats.percentile(v, 100))
    assert.are.equal(7, stats.percentile({ 7 }, 99))
    assert.are.equal(0, stats.percentile({}, 50))
  end)
  it("gives the mean and the population standard deviation (ddof 0)", function()
    -- 2, 4, 4, 4, 5, 5, 7, 9: mean 5, variance 32 / 8 = 4
    local m, s = stats.mean_std { 2, 4, 4, 4, 5, 5, 7, 9 }
    assert.are.same({ 5, 2 }, { m, s })
    assert.are.same({ 0, 0 }, { stats.mean_std {} })
  end)
end)
