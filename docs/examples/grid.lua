-- The worked example of docs/sweeps.md: Pythia-70M's shape varied over hidden size and depth,
-- on two devices (a sweep spec: tw.sweep's options as a Lua table).
return { base = "pythia-70m", vary = { hidden_size = { 512, 576, 640 }, num_hidden_layers = { 4, 6 } },
         hw = { "h100_sxm5", "a100_sxm4_80gb" }, workload = { b = 4, s = 2048 } }
