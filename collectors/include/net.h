/*
 * net.h - the network collector's interface to the libc wrappers it shares
 * with the ipc collector.  ipc/ owns the wrappers of connect, send, recv,
 * read, write... and the one fd classification cache; an AF_INET or
 * AF_INET6 socket is classified there as a network fd whose endpoint is the
 * network collector's (net_fd_ep), and the wrappers hand its calls here.
 * A non-socket fd never reaches this module: its cost stays the cache's
 * one load.
 */
#ifndef HOOKSCOPE_NET_H
#define HOOKSCOPE_NET_H

#include <stdbool.h>
#include <stdint.h>
#include <sys/socket.h>

/* Is a an IPv4 or IPv6 address? */
static inline bool net_is_inet(const struct sockaddr *a, socklen_t len)
{
	return a != NULL && len >= sizeof(sa_family_t) &&
	    (a->sa_family == AF_INET || a->sa_family == AF_INET6);
}

/* The endpoint of an IPv4/IPv6 socket fd of SO_TYPE type: its peer, or for
 * a socket that was accepted, "<- " its local address; an unconnected
 * datagram socket gets its protocol's "(unconnected)" endpoint. */
uint16_t net_fd_ep(int fd, int type, bool accepted);
/* The endpoint of a destination address (connect, sendto) for a socket of
 * SO_TYPE type. */
uint16_t net_addr_ep(int type, const struct sockaddr *a, socklen_t len);
/* The endpoint of a send on a socket of endpoint fd_ep to address a (NULL:
 * none): a datagram socket's destination, else fd_ep. */
uint16_t net_dest_ep(uint16_t fd_ep, const struct sockaddr *a, socklen_t len);
/* A connect() on fd to endpoint ep returned r (errno err) after t0..t1: done,
 * failed, or in progress (completed later by getsockopt(SO_ERROR), the
 * first I/O on fd, or its close). */
void net_connect(int fd, uint16_t ep, int r, int err, uint64_t t0, uint64_t t1);
/* A send (out) or receive on fd (endpoint ep) returned r (errno err). */
void net_io(int fd, uint16_t ep, bool out, long long r, int err, uint64_t t0, uint64_t t1);
/* fd is being closed (a connect still in progress on it was abandoned). */
void net_fd_closed(int fd);

#endif
