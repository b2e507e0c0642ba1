// Work on many files with every core, the results taken in order: a merge of 100 000 profiles is
// mostly reading and parsing them, which the files let us do side by side, while the sum must be
// the same as one file after the other (same totals, same messages in the same order).
#pragma once

#include <algorithm>
#include <condition_variable>
#include <cstddef>
#include <functional>
#include <mutex>
#include <optional>
#include <thread>
#include <vector>

namespace ppe::formatter {

// Runs produce(i) for every i in [0, n) on worker threads (as many as the machine has cores, at
// most `workers` when it is not 0) and consume(i, result) on the calling thread for i = 0, 1, ...
// in order. At most a few results per worker wait to be consumed (a ring of slots, filled by
// index), so memory is bounded by the slots, not by n. consume returning false stops the work:
// no further result is consumed and the workers end after the item they hold. `produce` must be
// safe to run on several threads at once; `consume` runs on one thread only.
template <class T>
void produceInOrder(size_t n, const std::function<T(size_t)>& produce, const std::function<bool(size_t, T&)>& consume,
    size_t workers = 0)
{
    const size_t cores = std::max<size_t>(1, std::thread::hardware_concurrency());
    workers = std::min(n, workers ? std::min(workers, cores) : cores);
    if (workers <= 1) { // nothing to share out: no threads
        for (size_t i = 0; i < n; ++i) {
            T result = produce(i);
            if (!consume(i, result))
                return;
        }
        return;
    }
    const size_t slots = 2 * workers;
    std::vector<std::optional<T>> ring(slots);
    std::mutex mutex;
    std::condition_variable filled, freed;
    size_t next = 0; // the next index a worker takes
    size_t consumed = 0; // indexes below it are consumed: their slots are free
    bool stop = false;
    auto work = [&] {
        for (;;) {
            std::unique_lock lock(mutex);
            freed.wait(lock, [&] { return stop || next >= n || next < consumed + slots; });
            if (stop || next >= n)
                return;
            const size_t i = next++;
            lock.unlock();
            T result = produce(i);
            lock.lock();
            ring[i % slots].emplace(std::move(result));
            filled.notify_one();
        }
    };
    std::vector<std::thread> threads;
    for (size_t w = 0; w < workers; ++w)
        threads.emplace_back(work);
    for (size_t i = 0; i < n; ++i) {
        std::unique_lock lock(mutex);
        filled.wait(lock, [&] { return ring[i % slots].has_value(); });
        T result = std::move(*ring[i % slots]);
        ring[i % slots].reset();
        ++consumed;
        lock.unlock();
        freed.notify_all();
        if (!consume(i, result))
            break;
    }
    {
        std::lock_guard lock(mutex);
        stop = true;
    }
    freed.notify_all();
    for (std::thread& t : threads)
        t.join();
}

} // namespace ppe::formatter
