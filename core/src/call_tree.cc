#include "ppe/core/call_tree.h"

#include <atomic>

namespace ppe {

namespace {

    uint32_t bucketsFor(uint32_t capacity)
    {
        uint32_t b = 1;
        while (b < capacity)
            b *= 2;
        return b;
    }

    uint32_t bucketOf(const CallTree& tree, uint32_t parent, uint64_t pc)
    {
        const uint64_t key = (pc ^ (uint64_t(parent) << 40 | parent)) * 0x9e3779b97f4a7c15ull;
        return uint32_t(key >> 32) & (tree.header->buckets - 1);
    }

    // The child of `parent` at `pc`, made when it is new; 0 when there is no room for it.
    uint32_t childOf(const CallTree& tree, uint32_t parent, uint64_t pc)
    {
        uint32_t& head = tree.buckets[bucketOf(tree, parent, pc)];
        for (uint32_t i = head; i; i = tree.nodes[i].next) {
            if (tree.nodes[i].parent == parent && tree.nodes[i].pc == pc)
                return i;
        }
        CallTreeHeader& h = *tree.header;
        const uint32_t made = h.used;
        if (made >= h.capacity)
            return 0;
        // The node first, then the count that makes it visible: a checkpoint written meanwhile
        // (another thread reads `used` once) never sees a node not yet filled in.
        tree.nodes[made] = CallNode { pc, 0, parent, head };
        std::atomic_ref<uint32_t>(h.used).store(made + 1, std::memory_order_release);
        head = made;
        return made;
    }

} // namespace

size_t callTreeBytes(uint32_t capacity)
{
    return sizeof(CallTreeHeader) + sizeof(uint32_t) * bucketsFor(capacity) + sizeof(CallNode) * capacity;
}

namespace {

    CallTree treeIn(void* memory, uint32_t capacity)
    {
        auto* bytes = static_cast<char*>(memory);
        CallTree tree;
        tree.header = reinterpret_cast<CallTreeHeader*>(bytes);
        tree.buckets = reinterpret_cast<uint32_t*>(bytes + sizeof(CallTreeHeader));
        tree.nodes
            = reinterpret_cast<CallNode*>(bytes + sizeof(CallTreeHeader) + sizeof(uint32_t) * bucketsFor(capacity));
        return tree;
    }

} // namespace

CallTree readCallTree(void* memory, uint32_t capacity)
{
    const CallTree tree = treeIn(memory, capacity);
    const CallTreeHeader& h = *tree.header;
    if (capacity < 2 || h.capacity != capacity || h.buckets != bucketsFor(capacity) || h.used < 1 || h.used > capacity)
        return CallTree {};
    for (uint32_t i = 1; i < h.used; ++i) {
        if (tree.nodes[i].parent >= i)
            return CallTree {};
    }
    return tree;
}

CallTree makeCallTree(void* memory, uint32_t capacity)
{
    CallTree tree = treeIn(memory, capacity);
    tree.header->capacity = capacity;
    tree.header->buckets = bucketsFor(capacity);
    tree.header->used = 1; // the root
    return tree;
}

bool addCallPath(const CallTree& tree, const uint64_t* pcs, size_t count, uint64_t weight)
{
    CallTreeHeader& h = *tree.header;
    h.samples += weight;
    uint32_t node = 0;
    for (size_t i = count; i-- > 0;) {
        const uint32_t child = childOf(tree, node, pcs[i]);
        if (!child) {
            h.cut += weight;
            tree.nodes[node].self += weight;
            return false;
        }
        node = child;
    }
    tree.nodes[node].self += weight;
    return true;
}

} // namespace ppe
