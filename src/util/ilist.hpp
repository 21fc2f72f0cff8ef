// SPDX-License-Identifier: MIT
// Intrusive doubly linked list. Objects embed an ilist_node per list they can be
// on; no allocation, O(1) insert and remove. Used by the matching queues and
// the pools' free lists.
#pragma once
#include <cstddef>

namespace ch4lite::util {

struct ilist_node {
    ilist_node* prev = nullptr;
    ilist_node* next = nullptr;
    bool linked() const noexcept { return next != nullptr; }
};

// T must have a member `ilist_node Member`.
template <class T, ilist_node T::*Member>
class ilist {
  public:
    ilist() noexcept { head_.prev = head_.next = &head_; }
    ilist(const ilist&) = delete;
    ilist& operator=(const ilist&) = delete;

    bool empty() const noexcept { return head_.next == &head_; }
    std::size_t size() const noexcept { return size_; }

    void push_back(T* obj) noexcept { insert_before(&head_, node(obj)); }
    void push_front(T* obj) noexcept { insert_before(head_.next, node(obj)); }
    void remove(T* obj) noexcept {
        ilist_node* n = node(obj);
        n->prev->next = n->next;
        n->next->prev = n->prev;
        n->prev = n->next = nullptr;
        --size_;
    }
    T* front() const noexcept { return empty() ? nullptr : owner(head_.next); }
    T* pop_front() noexcept {
        T* obj = front();
        if (obj) remove(obj);
        return obj;
    }
    // Iteration: for (T* x = l.front(); x; x = l.next(x)) ...
    T* next(T* obj) const noexcept {
        ilist_node* n = node(obj)->next;
        return n == &head_ ? nullptr : owner(n);
    }

  private:
    static ilist_node* node(T* obj) noexcept { return &(obj->*Member); }
    static T* owner(ilist_node* n) noexcept {
        // offset of the member inside T, computed without a T instance.
        const auto off = reinterpret_cast<std::size_t>(&(static_cast<T*>(nullptr)->*Member));
        return reinterpret_cast<T*>(reinterpret_cast<char*>(n) - off);
    }
    void insert_before(ilist_node* pos, ilist_node* n) noexcept {
        n->next = pos;
        n->prev = pos->prev;
        pos->prev->next = n;
        pos->prev = n;
        ++size_;
    }
    ilist_node head_;
    std::size_t size_ = 0;
};

}  // namespace ch4lite::util
