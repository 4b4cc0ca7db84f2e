-- wrk's Lua for POST /v1/transfers against a running Tally (or the peer): uniform transfers of 1.00 TRY between two
-- distinct funded customers, every request with a new Idempotency-Key (run tag, thread, counter), each status counted.
--   wrk -t1 -c64 -d30s --latency -s perf/scripts/wrk-transfers.lua http://127.0.0.1:8080 -- FIRST_ID CUSTOMERS API_KEY RUN_TAG
-- FIRST_ID + 1 .. FIRST_ID + CUSTOMERS are the customers (perf/scripts/wrk-readme-server.sh creates and funds them).
-- done() prints one line for scripts: WRK statuses 201=… 503=… other=… requests=… seconds=…

local threads = {}

function setup(thread)
   thread:set("thread_id", #threads + 1)
   table.insert(threads, thread)
end

function init(args)
   first_id = tonumber(args[1])
   customers = tonumber(args[2])
   api_key = args[3]
   run_tag = args[4]
   counter = 0
   created = 0
   shed = 0
   other = 0
   math.randomseed(os.time() * 1000 + thread_id)
   headers = { ["Authorization"] = "Bearer " .. api_key, ["Content-Type"] = "application/json" }
end

function request()
   counter = counter + 1
   local debit = math.random(1, customers)
   local credit = math.random(1, customers - 1)
   if credit >= debit then
      credit = credit + 1
   end
   headers["Idempotency-Key"] = run_tag .. "-" .. thread_id .. "-" .. counter
   local body = string.format('{"debitAccountId":%d,"creditAccountId":%d,"amount":"1.00","currency":"TRY"}',
      first_id + debit, first_id + credit)
   return wrk.format("POST", "/v1/transfers", headers, body)
end

function response(status, headers, body)
   if status == 201 then
      created = created + 1
   elseif status == 503 then
      shed = shed + 1
   else
      other = other + 1
   end
end

function done(summary, latency, requests)
   local c, s, o = 0, 0, 0
   for _, thread in ipairs(threads) do
      c = c + thread:get("created")
      s = s + thread:get("shed")
      o = o + thread:get("other")
   end
   io.write(string.format("WRK statuses 201=%d 503=%d other=%d requests=%d seconds=%.1f p50_us=%d p99_us=%d\n", c, s, o,
      summary.requests, summary.duration / 1e6, latency:percentile(50), latency:percentile(99)))
end
