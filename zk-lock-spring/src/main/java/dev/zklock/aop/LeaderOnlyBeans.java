package dev.zklock.aop;

import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;

import org.jspecify.annotations.Nullable;

import dev.zklock.leadership.ZkLeadership;

import org.springframework.aop.framework.AopProxyUtils;
import org.springframework.beans.factory.BeanFactory;
import org.springframework.beans.factory.ListableBeanFactory;
import org.springframework.context.Lifecycle;

/**
 * Makes the {@code @LeaderOnly} beans known to the application's {@link ZkLeadership}
 * before the context starts its lifecycle beans, so that this instance joins every group
 * when the application starts, not at the first call: each group is added, and each
 * leader-only component's target is registered to be started and stopped with the term
 * (the context sees only its proxy, which keeps the context's hands off). Beans made
 * after startup (lazy ones) are registered at once. Fed by {@link LockedBeanVerifier}
 * with the operations it checked.
 */
final class LeaderOnlyBeans {

	/** Each group, with the first method found for it, for messages. */
	private final Map<String, LeaderOperation> groups = new LinkedHashMap<>();

	private final List<Component> components = new ArrayList<>();

	private @Nullable ZkLeadership leadership;

	/**
	 * Take note of a bean's leader-only operations, checked already; register them if the
	 * application has started.
	 * @param beanName the bean's name
	 * @param bean the bean, its proxy
	 * @param operations its operations, at least one
	 */
	synchronized void found(String beanName, Object bean, List<LeaderOperation> operations) {
		List<String> newGroups = new ArrayList<>();
		for (LeaderOperation operation : operations) {
			if (this.groups.putIfAbsent(operation.group(), operation) == null) {
				newGroups.add(operation.group());
			}
		}
		Component component = null;
		LeaderOperation lifecycle = operations.stream()
			.filter((operation) -> operation.kind() != LeaderOperation.Kind.WORK)
			.findFirst()
			.orElse(null);
		if (lifecycle != null) {
			Object target = AopProxyUtils.getSingletonTarget(bean);
			if (!(target instanceof Lifecycle targetLifecycle)) {
				throw new InvalidLockDeclarationException(LeaderOperation.ANNOTATION, lifecycle.describeMethod(), null,
						"the leader-only component '" + beanName + "' has no single target behind its proxy (it is "
								+ "scoped, or pooled), so the leadership has no one component to start and stop",
						"Make the component a plain singleton bean");
			}
			component = new Component(lifecycle.group(), targetLifecycle);
			this.components.add(component);
		}
		ZkLeadership started = this.leadership;
		if (started != null) {
			newGroups.forEach(started::addGroup);
			if (component != null) {
				started.addLeaderOnlyComponent(component.group, component.target);
			}
		}
	}

	/**
	 * Every singleton exists: hand the groups and components to the leadership, which the
	 * context starts next.
	 * @param beanFactory the bean factory
	 * @throws InvalidLockDeclarationException if there are leader-only methods and no
	 * leadership
	 */
	synchronized void startupDone(@Nullable BeanFactory beanFactory) {
		if (this.groups.isEmpty()) {
			return;
		}
		ZkLeadership found = leadership(beanFactory);
		if (found == null) {
			LeaderOperation first = this.groups.values().iterator().next();
			throw new InvalidLockDeclarationException(LeaderOperation.ANNOTATION, first.describeMethod(), null,
					"it needs a ZkLeadership bean to tell whether this instance leads group '" + first.group()
							+ "', and the application defines none (or several, none of them primary)",
					"Define one (@Bean ZkLeadership zkLeadership(ZkLockRegistry registry) { return new "
							+ "ZkLeadership(registry); }), or use the Spring Boot starter's");
		}
		this.groups.keySet().forEach(found::addGroup);
		for (Component component : this.components) {
			found.addLeaderOnlyComponent(component.group, component.target);
		}
		this.leadership = found;
	}

	private static @Nullable ZkLeadership leadership(@Nullable BeanFactory beanFactory) {
		if (!(beanFactory instanceof ListableBeanFactory listable)) {
			return null;
		}
		String[] names = listable.getBeanNamesForType(ZkLeadership.class, true, false);
		return (names.length == 1) ? listable.getBean(names[0], ZkLeadership.class)
				: listable.getBeanProvider(ZkLeadership.class).getIfUnique();
	}

	private record Component(String group, Lifecycle target) {
	}

}
