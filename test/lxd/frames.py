#!/usr/bin/env python3
"""Raw Ethernet frames for the hostile-tenant suite (hostile-tenant.lxd.ts), which busybox cannot send.

  frames.py send IFACE MAC IPV4       sends, as a rogue server would on its own NIC: a DHCP server
                                      reply (UDP 67 -> 68, broadcast) and an IPv6 router advertisement
                                      (ICMPv6 134 to ff02::1), each three times. Run inside the
                                      server's network namespace (nsenter -n), from its own MAC.
  frames.py capture IFACE MAC SECONDS prints, as JSON, how many frames from MAC arrived on IFACE
                                      (the host side of another server's NIC) by kind: dhcp, ra, other;
                                      prints "ready" first, once listening.
"""

import json
import socket
import struct
import sys
import time

ETH_P_ALL = 0x0003


def mac_bytes(mac):
    return bytes(int(part, 16) for part in mac.split(':'))


def checksum(data):
    if len(data) % 2:
        data += b'\0'
    total = sum(struct.unpack('!%dH' % (len(data) // 2), data))
    while total >> 16:
        total = (total & 0xFFFF) + (total >> 16)
    return ~total & 0xFFFF


def dhcp_offer(mac, ipv4):
    src = socket.inet_aton(ipv4)
    bootp = struct.pack('!BBBBIHH4s4s4s4s16s64s128s', 2, 1, 6, 0, 0x1234, 0, 0x8000, b'\0' * 4,
                        socket.inet_aton('10.66.0.2'), src, b'\0' * 4, b'\xaa' * 6 + b'\0' * 10, b'', b'')
    options = b'\x63\x82\x53\x63' + bytes([53, 1, 2, 54, 4]) + src + bytes([3, 4]) + src + b'\xff'
    payload = bootp + options
    udp = struct.pack('!HHHH', 67, 68, 8 + len(payload), 0) + payload
    header = struct.pack('!BBHHHBBH4s4s', 0x45, 0, 20 + len(udp), 0, 0, 64, 17, 0, src, b'\xff' * 4)
    header = header[:10] + struct.pack('!H', checksum(header)) + header[12:]
    return b'\xff' * 6 + mac_bytes(mac) + b'\x08\x00' + header + udp


def router_advertisement(mac):
    m = mac_bytes(mac)
    eui = bytes([m[0] ^ 2]) + m[1:3] + b'\xff\xfe' + m[3:]
    src = b'\xfe\x80' + b'\0' * 6 + eui
    dst = socket.inet_pton(socket.AF_INET6, 'ff02::1')
    # Type 134, hop limit 64, router lifetime 1800 s; a prefix information option for 2001:db8:bad::/64.
    prefix = struct.pack('!BBBBIII16s', 3, 4, 64, 0xC0, 86400, 14400, 0, socket.inet_pton(socket.AF_INET6, '2001:db8:bad::'))
    body = struct.pack('!BBHBBHII', 134, 0, 0, 64, 0, 1800, 0, 0) + prefix
    pseudo = src + dst + struct.pack('!I3xB', len(body), 58)
    body = body[:2] + struct.pack('!H', checksum(pseudo + body)) + body[4:]
    header = struct.pack('!IHBB16s16s', 0x60000000, len(body), 58, 255, src, dst)
    return b'\x33\x33\x00\x00\x00\x01' + m + b'\x86\xdd' + header + body


def kind_of(frame):
    ethertype = struct.unpack('!H', frame[12:14])[0]
    if ethertype == 0x0800 and frame[23] == 17 and struct.unpack('!H', frame[34:36])[0] == 67:
        return 'dhcp'
    if ethertype == 0x86DD and frame[20] == 58 and frame[54] == 134:
        return 'ra'
    return 'other'


def main():
    command, iface, mac = sys.argv[1:4]
    sock = socket.socket(socket.AF_PACKET, socket.SOCK_RAW, socket.htons(ETH_P_ALL))
    sock.bind((iface, 0))
    if command == 'send':
        for _ in range(3):
            sock.send(dhcp_offer(mac, sys.argv[4]))
            sock.send(router_advertisement(mac))
            time.sleep(0.2)
        return
    seen = {'dhcp': 0, 'ra': 0, 'other': 0}
    until = time.time() + float(sys.argv[4])
    print('ready', flush=True)
    while time.time() < until:
        sock.settimeout(max(0.01, until - time.time()))
        try:
            frame = sock.recv(65535)
        except socket.timeout:
            break
        if frame[6:12] == mac_bytes(mac):
            seen[kind_of(frame)] += 1
    print(json.dumps(seen), flush=True)


main()
