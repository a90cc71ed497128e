package dev.zklock.autoconfigure;

import org.springframework.boot.autoconfigure.service.connection.ConnectionDetails;

/**
 * Details required to establish a connection to a ZooKeeper ensemble. Taken from
 * {@code zklock.connect-string} unless another bean provides them, for example a
 * Testcontainers {@code @ServiceConnection}.
 *
 * @author zk-lock
 */
public interface ZkLockConnectionDetails extends ConnectionDetails {

	/**
	 * Return the ZooKeeper connect string: {@code host:port[,host:port...][/chroot]}.
	 * @return the connect string
	 */
	String getConnectString();

}
