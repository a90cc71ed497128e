package dev.zklock.autoconfigure;

/**
 * Adapts {@link ZkLockProperties} to {@link ZkLockConnectionDetails}.
 *
 * @author zk-lock
 */
final class PropertiesZkLockConnectionDetails implements ZkLockConnectionDetails {

	private final ZkLockProperties properties;

	PropertiesZkLockConnectionDetails(ZkLockProperties properties) {
		this.properties = properties;
	}

	@Override
	public String getConnectString() {
		return this.properties.getConnectString();
	}

}
