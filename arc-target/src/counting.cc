#include "ppe/arc/counting.h"

#include <algorithm>

namespace ppe::arc {

namespace {

    using gdbremote::Clock;
    using gdbremote::StopReply;

    constexpr auto kSlice = std::chrono::milliseconds(50); // how often an interrupt is looked for

    double seconds(Clock::duration d) { return std::chrono::duration<double>(d).count(); }

    // Zeroes and configures the counters while the target stands stopped (each limited to the
    // range asked, its enable bit read back), then runs them.
    gdbremote::Status prepare(Pct& pct, const std::vector<uint32_t>& conditions, const CountRequest& request)
    {
        if (request.range && !request.profile)
            return Error { "", 0, "range counting is off: no core profile names the bit that enables it" };
        if (request.range && request.profile->pctBuild && *request.profile->pctBuild != pct.build().bits)
            return Error { "", 0,
                "the core profile is for core " + request.profile->core + " (pct-build "
                    + std::to_string(*request.profile->pctBuild) + "), not this core (PCT_BUILD "
                    + std::to_string(pct.build().bits) + ")" };
        gdbremote::Status done = pct.stop();
        done = done ? pct.clear() : done;
        for (unsigned counter = 0; done && counter < conditions.size(); ++counter) {
            done = pct.configure(counter, conditions[counter], request.where);
            if (done && request.range)
                done = pct.limitToRange(counter, request.range->low, request.range->high, *request.profile);
        }
        return done ? pct.start() : done;
    }

    // Runs the target until the duration, an interrupt or its own halt (a halted core counts
    // nothing meanwhile). What ended the run.
    Result<std::string> run(gdbremote::TargetControl& control, const CountRequest& request,
        const std::atomic<bool>* stop, Clock::time_point start)
    {
        const bool timed = request.duration.count() > 0;
        Result<RunEnd> ran = runUntil(control, timed ? std::optional(start + request.duration) : std::nullopt, stop,
            [](const StopReply&) -> Result<bool> { return true; });
        if (!ran)
            return ran.error();
        if (ran->why == "ended") {
            const std::string how = !ran->stop               ? "" // it had ended before the run
                : ran->stop->kind == StopReply::Kind::Exited ? " (exit status " + std::to_string(ran->stop->code) + ")"
                                                             : " (signal " + std::to_string(ran->stop->code) + ")";
            return Error { control.session().peer(), 0,
                "the program ended" + how
                    + " before its counters were read: count for a --duration, or stop it at a breakpoint" };
        }
        if (ran->why.empty())
            return "the target halted (signal " + std::to_string(ran->stop->code) + ")";
        return ran->why;
    }

} // namespace

Result<StopReply> awaitStop(gdbremote::TargetControl& control, std::optional<gdbremote::Clock::time_point> end,
    const std::atomic<bool>* stop, std::string& why)
{
    for (;;) {
        const bool interrupted = stop && stop->load(std::memory_order_relaxed);
        if (interrupted || (end && Clock::now() >= *end)) {
            why = interrupted ? "interrupted" : "duration";
            return control.stop();
        }
        const Clock::time_point slice = Clock::now() + kSlice;
        Result<bool> got = control.session().incoming(end ? std::min(slice, *end) : slice);
        if (!got)
            return got.error();
        if (*got)
            return control.ownStop();
    }
}

Result<RunEnd> runUntil(gdbremote::TargetControl& control, std::optional<Clock::time_point> end,
    const std::atomic<bool>* stop, const TrapHandler& atTrap, uint64_t* passed)
{
    for (int signal = 0;;) {
        if (control.state() == gdbremote::TargetState::Ended) // during a step over a breakpoint
            return RunEnd { "ended", std::nullopt };
        if (gdbremote::Status resumed = control.resume(signal); !resumed)
            return resumed.error();
        RunEnd ran;
        Result<StopReply> own = awaitStop(control, end, stop, ran.why);
        if (!own)
            return own.error();
        ran.stop = *own;
        if (!ran.why.empty())
            return ran;
        if (own->ended())
            return RunEnd { "ended", *own };
        signal = own->code == 0 || own->code == 5 ? 0 : own->code;
        if (passed)
            *passed += signal != 0;
        if (signal)
            continue;
        Result<bool> accepted = atTrap(*own);
        if (!accepted)
            return accepted.error();
        if (*accepted)
            return ran;
    }
}

Result<std::vector<uint32_t>> conditionsOf(const Pct& pct, const std::vector<std::string>& events)
{
    if (events.empty())
        return Error { "", 0, "no event to count (--event crun,iall,...; ppe-arc conditions lists them)" };
    if (events.size() > pct.build().counters)
        return Error { "", 0,
            std::to_string(events.size()) + " events but the core has " + std::to_string(pct.build().counters)
                + " counters" };
    std::vector<uint32_t> conditions;
    for (const std::string& event : events) {
        Result<uint32_t> condition = pct.condition(event);
        if (!condition)
            return condition.error();
        if (std::find(conditions.begin(), conditions.end(), *condition) != conditions.end())
            return Error { "", 0, "the event " + event + " is asked twice" };
        conditions.push_back(*condition);
    }
    return conditions;
}

Result<CountResult> countEvents(
    gdbremote::TargetControl& control, Pct& pct, const CountRequest& request, const std::atomic<bool>* stop)
{
    Result<std::vector<uint32_t>> conditions = conditionsOf(pct, request.events);
    if (!conditions)
        return conditions.error();
    if (gdbremote::Status ready = prepare(pct, *conditions, request); !ready)
        return ready.error();
    CountResult result;
    const Clock::time_point start = Clock::now();
    Result<std::string> end = run(control, request, stop, start);
    if (!end)
        return end.error();
    result.seconds = seconds(Clock::now() - start);
    result.end = *end;
    if (gdbremote::Status stopped = pct.stop(); !stopped)
        return stopped.error();
    for (unsigned counter = 0; counter < conditions->size(); ++counter) {
        Result<uint64_t> value = pct.read(counter);
        if (!value)
            return value.error();
        result.counts.push_back({ request.events[counter], *value });
    }
    return result;
}

} // namespace ppe::arc
